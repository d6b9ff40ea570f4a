// Spending limits as the dashboard shows and edits them, for API keys, connected apps and the consent
// page: an amount per day, per month (calendar periods, UTC) and in total, in each currency listings are
// priced in (ETH, then the tokens of GET /v1/currencies); each shown with what was spent this period, what
// remains and when it resets, in its own currency. Amounts are parsed by viem (never through floats).
import { useMemo, useState } from "react";
import * as Dialog from "@radix-ui/react-dialog";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { formatUnits, parseUnits } from "viem";
import type { Currencies, SpendLimit, SpendLimitInput } from "@agent-rental/sdk";
import { useClient, usePublicQuery } from "../api/hooks.ts";
import { ErrorNote } from "./notices.tsx";
import { formatAmount, formatTime } from "./format.ts";

const PERIODS = [
  { period: "day", label: "Per day (UTC)" },
  { period: "month", label: "Per month (UTC)" },
  { period: "total", label: "In total" },
] as const;
type Period = (typeof PERIODS)[number]["period"];

/** A currency a limit may count: its symbol (as limits name it) and its decimals. */
export interface LimitCurrency {
  symbol: string;
  decimals: number;
}
const ETH: LimitCurrency = { symbol: "ETH", decimals: 18 };

/** The currencies limits may count here: ETH, then each token of GET /v1/currencies (ETH alone until it answers). */
export function useLimitCurrencies(): LimitCurrency[] {
  const currencies = usePublicQuery<Currencies>("/v1/currencies");
  // The same array until the answer changes: pages draft from it in effects.
  return useMemo(() => currencies.data?.currencies.map((c) => ({ symbol: c.symbol, decimals: c.decimals })) ?? [ETH], [currencies.data]);
}

/** The editor's text per currency and period ("" for no limit). A limit in a currency the page does not
 * know (yet) is kept as it is: shown, sent back unchanged, never read as another currency's amount. */
export interface LimitDraft {
  text: Record<string, Record<Period, string>>;
  kept: SpendLimitInput[];
}

const symbolOf = (limit: { currency?: string | undefined }) => limit.currency ?? "ETH";

export function draftOf(limits: readonly { currency?: string; period: string; amount: string }[], currencies: readonly LimitCurrency[]): LimitDraft {
  const draft: LimitDraft = { text: {}, kept: [] };
  for (const c of currencies) draft.text[c.symbol] = { day: "", month: "", total: "" };
  for (const l of limits) {
    const currency = currencies.find((c) => c.symbol === symbolOf(l));
    const periods = draft.text[symbolOf(l)];
    if (currency && periods && l.period in periods) periods[l.period as Period] = formatUnits(BigInt(l.amount), currency.decimals);
    else draft.kept.push({ currency: symbolOf(l), period: l.period as Period, amount: l.amount });
  }
  return draft;
}

/** The currencies the editor has fields for: the service's, less those whose limits it keeps as they are. */
function editable(draft: LimitDraft, currencies: readonly LimitCurrency[]): LimitCurrency[] {
  const kept = new Set(draft.kept.map(symbolOf));
  return currencies.filter((c) => !kept.has(c.symbol));
}

const NO_LIMITS: Record<Period, string> = { day: "", month: "", total: "" };
/** A currency's texts in the draft (none yet for a currency the page learnt of after drafting). */
const textsOf = (draft: LimitDraft, symbol: string) => draft.text[symbol] ?? NO_LIMITS;

/** The draft as the API takes it, or the first problem in words. */
export function limitsOf(draft: LimitDraft, currencies: readonly LimitCurrency[]): { limits: SpendLimitInput[] } | { problem: string } {
  const limits: SpendLimitInput[] = [];
  for (const currency of editable(draft, currencies)) {
    const { symbol, decimals } = currency;
    const named = (label: string) => (symbol === "ETH" ? label : `${label} in ${symbol}`);
    for (const { period, label } of PERIODS) {
      const text = textsOf(draft, symbol)[period].trim();
      if (text === "") continue;
      let units: bigint;
      try {
        if (!new RegExp(decimals === 0 ? "^\\d+$" : `^\\d+(\\.\\d{1,${decimals}})?$`).test(text)) throw new Error("not an amount");
        units = parseUnits(text, decimals);
      } catch {
        return { problem: `${named(label)}: enter an amount of ${symbol} such as ${decimals >= 2 ? "0.01" : "1"}.` };
      }
      if (units <= 0n) return { problem: `${named(label)}: a limit must be more than 0 ${symbol} (leave it empty for none).` };
      limits.push({ currency: symbol, period, amount: units.toString() });
    }
  }
  return { limits: [...limits, ...draft.kept] };
}

/** An amount of a limit in its currency: "0.003 ETH", "5 USDC" (a currency the page does not know: its units). */
export function formatLimitAmount(units: string, symbol: string, currencies: readonly LimitCurrency[]): string {
  const currency = currencies.find((c) => c.symbol === symbol);
  return currency ? formatAmount(units, currency) : `${units} units of ${symbol}`;
}

function perPeriod(period: string): string {
  return period === "total" ? "in total" : `per ${period}`;
}

export function SpendLimitFields({ draft, onChange, idPrefix, currencies }: { draft: LimitDraft; onChange: (draft: LimitDraft) => void; idPrefix: string; currencies: readonly LimitCurrency[] }) {
  const shown = editable(draft, currencies);
  return (
    <fieldset className="stack" style={{ border: 0, padding: 0, margin: 0 }}>
      <legend>Spending limit (on per-task runs, in each currency; empty for none)</legend>
      {shown.map(({ symbol }) => (
        <fieldset key={symbol} className="limit-currency">
          <legend>{symbol}</legend>
          <div className="row">
            {PERIODS.map(({ period, label }) => {
              const id = symbol === "ETH" ? `${idPrefix}-${period}` : `${idPrefix}-${symbol}-${period}`;
              return (
                <div className="field" key={period}>
                  <label htmlFor={id}>{label}</label>
                  <input id={id} inputMode="decimal" placeholder="no limit" value={textsOf(draft, symbol)[period]} onChange={(e) => onChange({ ...draft, text: { ...draft.text, [symbol]: { ...textsOf(draft, symbol), [period]: e.target.value } } })} />
                </div>
              );
            })}
          </div>
        </fieldset>
      ))}
      {draft.kept.length > 0 ? (
        <p className="hint" data-testid={`${idPrefix}-kept`}>
          Kept as they are: {draft.kept.map((l) => `${formatLimitAmount(l.amount, symbolOf(l), currencies)} ${perPeriod(l.period)}`).join(", ")}.
        </p>
      ) : null}
    </fieldset>
  );
}

function describe(limit: SpendLimit, currencies: readonly LimitCurrency[]): string {
  const amount = (units: string) => formatLimitAmount(units, limit.currency, currencies);
  const resets = limit.resets_at ? ` · resets ${formatTime(limit.resets_at)}` : "";
  const held = limit.reserved !== "0" ? ` (+${amount(limit.reserved)} in flight)` : "";
  return `${amount(limit.amount)} ${perPeriod(limit.period)} · spent ${amount(limit.spent)}${held} · ${amount(limit.remaining)} left${resets}`;
}

export function SpendLimitSummary({ limits, testId }: { limits: readonly SpendLimit[]; testId?: string }) {
  const currencies = useLimitCurrencies();
  if (limits.length === 0) return <span className="muted" data-testid={testId}>No limit</span>;
  return (
    <ul data-testid={testId} style={{ margin: 0, paddingLeft: "1rem" }}>
      {limits.map((l) => (
        <li key={`${l.currency}-${l.period}`} className="small">{describe(l, currencies)}</li>
      ))}
    </ul>
  );
}

/** "Edit limit": a dialog that replaces the limits of an API key or a connected app (with the wallet's sign-in). */
export function EditSpendLimits({ what, of, limits, queryPath }: { what: string; of: { key: string } | { app: string }; limits: readonly SpendLimit[]; queryPath: string }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const currencies = useLimitCurrencies();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<LimitDraft>(() => draftOf(limits, currencies));
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
          setDraft(draftOf(limits, currencies));
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
              const parsed = limitsOf(draft, currencies);
              if ("problem" in parsed) return setProblem(parsed.problem);
              setProblem(null);
              save.mutate(parsed.limits);
            }}
          >
            <SpendLimitFields draft={draft} onChange={setDraft} idPrefix="edit-limit" currencies={currencies} />
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
