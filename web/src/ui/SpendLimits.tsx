// Spending limits as the dashboard shows and edits them, for API keys, connected apps and the consent
// page: an amount of ETH per day, per month (calendar periods, UTC) and in total; each shown with what was
// spent this period, what remains and when it resets. Amounts are parsed by viem (never through floats).
import { useState } from "react";
import * as Dialog from "@radix-ui/react-dialog";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { formatEther, parseEther } from "viem";
import type { SpendLimit, SpendLimitInput } from "@agent-rental/sdk";
import { useClient } from "../api/hooks.ts";
import { ErrorNote } from "./notices.tsx";
import { formatTime, formatWei } from "./format.ts";

const PERIODS = [
  { period: "day", label: "Per day (UTC)" },
  { period: "month", label: "Per month (UTC)" },
  { period: "total", label: "In total" },
] as const;
type Period = (typeof PERIODS)[number]["period"];

/** The editor's text per period, in ETH ("" for no limit). */
export type LimitDraft = Record<Period, string>;

export function draftOf(limits: readonly { period: string; amount: string }[]): LimitDraft {
  const draft: LimitDraft = { day: "", month: "", total: "" };
  for (const l of limits) if (l.period in draft) draft[l.period as Period] = formatEther(BigInt(l.amount));
  return draft;
}

/** The draft as the API takes it, or the first problem in words. */
export function limitsOf(draft: LimitDraft): { limits: SpendLimitInput[] } | { problem: string } {
  const limits: SpendLimitInput[] = [];
  for (const { period, label } of PERIODS) {
    const text = draft[period].trim();
    if (text === "") continue;
    let wei: bigint;
    try {
      if (!/^\d+(\.\d{1,18})?$/.test(text)) throw new Error("not an amount");
      wei = parseEther(text);
    } catch {
      return { problem: `${label}: enter an amount of ETH such as 0.01.` };
    }
    if (wei <= 0n) return { problem: `${label}: a limit must be more than 0 ETH (leave it empty for none).` };
    limits.push({ currency: "ETH", period, amount: wei.toString() });
  }
  return { limits };
}

export function SpendLimitFields({ draft, onChange, idPrefix }: { draft: LimitDraft; onChange: (draft: LimitDraft) => void; idPrefix: string }) {
  return (
    <fieldset className="stack" style={{ border: 0, padding: 0, margin: 0 }}>
      <legend>Spending limit (ETH, on per-task runs; empty for none)</legend>
      {PERIODS.map(({ period, label }) => (
        <div className="field" key={period}>
          <label htmlFor={`${idPrefix}-${period}`}>{label}</label>
          <input id={`${idPrefix}-${period}`} inputMode="decimal" placeholder="no limit" value={draft[period]} onChange={(e) => onChange({ ...draft, [period]: e.target.value })} />
        </div>
      ))}
    </fieldset>
  );
}

function describe(limit: SpendLimit): string {
  const per = limit.period === "total" ? "in total" : `per ${limit.period}`;
  const resets = limit.resets_at ? ` · resets ${formatTime(limit.resets_at)}` : "";
  const held = limit.reserved !== "0" ? ` (+${formatWei(limit.reserved)} in flight)` : "";
  return `${formatWei(limit.amount)} ${per} · spent ${formatWei(limit.spent)}${held} · ${formatWei(limit.remaining)} left${resets}`;
}

export function SpendLimitSummary({ limits, testId }: { limits: readonly SpendLimit[]; testId?: string }) {
  if (limits.length === 0) return <span className="muted" data-testid={testId}>No limit</span>;
  return (
    <ul data-testid={testId} style={{ margin: 0, paddingLeft: "1rem" }}>
      {limits.map((l) => (
        <li key={`${l.currency}-${l.period}`} className="small">{describe(l)}</li>
      ))}
    </ul>
  );
}

/** "Edit limit": a dialog that replaces the limits of an API key or a connected app (with the wallet's sign-in). */
export function EditSpendLimits({ what, of, limits, queryPath }: { what: string; of: { key: string } | { app: string }; limits: readonly SpendLimit[]; queryPath: string }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<LimitDraft>(() => draftOf(limits));
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (spendLimits: SpendLimitInput[]): Promise<unknown> => ("key" in of ? client.keys.setSpendLimits(of.key, spendLimits) : client.apps.setSpendLimits(of.app, spendLimits)),
    onSuccess: () => {
      setOpen(false);
      void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[2] === queryPath });
    },
  });
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(o) => {
        setOpen(o);
        if (o) {
          setDraft(draftOf(limits));
          setProblem(null);
          save.reset();
        }
      }}
    >
      <Dialog.Trigger asChild>
        <button className="btn btn-small" aria-label={`Edit limit of ${what}`}>
          Edit limit
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog stack">
          <Dialog.Title>Spending limit of {what}</Dialog.Title>
          <Dialog.Description className="muted">Runs past a limit are refused before they start. What was spent this period still counts.</Dialog.Description>
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              const parsed = limitsOf(draft);
              if ("problem" in parsed) return setProblem(parsed.problem);
              setProblem(null);
              save.mutate(parsed.limits);
            }}
          >
            <SpendLimitFields draft={draft} onChange={setDraft} idPrefix="edit-limit" />
            {problem ? <div className="notice notice-error" role="alert">{problem}</div> : null}
            {save.error ? <ErrorNote error={save.error} title="The limit could not be saved" /> : null}
            <div className="row" style={{ justifyContent: "flex-end" }}>
              <Dialog.Close asChild>
                <button className="btn" type="button">Cancel</button>
              </Dialog.Close>
              <button className="btn btn-primary" type="submit" disabled={save.isPending}>Save limit</button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
