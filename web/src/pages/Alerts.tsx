// Alerts on spending, on the API keys page: where alerts go (a webhook, signed, and this list) and when a
// low per-task balance alerts, then the newest alerts with their delivery. The webhook's signing secret
// is shown once, when it is made, as a new API key is.
import { useEffect, useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Alert, AlertSettings } from "@agent-rental/sdk";
import { useClient } from "../api/hooks.ts";
import { useSession } from "../auth/session.tsx";
import { Empty, ErrorNote, Loading } from "../ui/notices.tsx";
import { formatAmount, formatTime } from "../ui/format.ts";
import { formatLimitAmount, useLimitCurrencies, type LimitCurrency } from "../ui/SpendLimits.tsx";
import { useAllCredentials } from "../api/credentials.ts";

function useAlertQueries() {
  const client = useClient();
  const { session } = useSession();
  const settings = useQuery<AlertSettings>({
    queryKey: ["auth", session?.wallet, "alert-settings"],
    queryFn: () => client.alerts.getSettings(),
    enabled: Boolean(session),
  });
  const alerts = useQuery<Alert[]>({ queryKey: ["auth", session?.wallet, "alerts"], queryFn: () => client.alerts.list({ limit: 20 }), enabled: Boolean(session), refetchInterval: 15_000 });
  return { settings, alerts };
}

export function AlertsSection() {
  const { settings, alerts } = useAlertQueries();
  return (
    <section className="stack" aria-labelledby="alerts-heading">
      <div>
        <h2 id="alerts-heading">Alerts</h2>
        <p className="muted">You are alerted when a key or app has spent 80% of a limit, and when no further run fits it; and, if you choose, when a per-task balance runs low. Alerts show here and go to your webhook, signed.</p>
      </div>
      {settings.isPending ? <Loading label="Loading your alert settings" /> : settings.isError ? <ErrorNote error={settings.error} title="Your alert settings could not be loaded" /> : <SettingsForm current={settings.data} />}
      {alerts.isPending ? <Loading label="Loading your alerts" /> : alerts.isError ? <ErrorNote error={alerts.error} title="Your alerts could not be loaded" /> : <AlertList alerts={alerts.data} />}
    </section>
  );
}

function SettingsForm({ current }: { current: AlertSettings }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(current.webhook_url ?? "");
  const [runs, setRuns] = useState(current.low_balance_runs ? String(current.low_balance_runs) : "");
  const [secret, setSecret] = useState<string | null>(null);
  useEffect(() => {
    setUrl(current.webhook_url ?? "");
    setRuns(current.low_balance_runs ? String(current.low_balance_runs) : "");
  }, [current]);
  const save = useMutation({
    mutationFn: (rotate: boolean) => client.alerts.setSettings({ webhookUrl: url.trim() || null, lowBalanceRuns: runs.trim() ? Number(runs) : null, rotateSecret: rotate }),
    onSuccess: (saved) => {
      setSecret(saved.webhook_secret ?? null);
      void queryClient.invalidateQueries({ queryKey: ["auth"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(false);
  };
  return (
    <form className="card stack" onSubmit={submit} aria-label="Alert settings">
      <div className="field">
        <label htmlFor="alert-webhook">Webhook URL</label>
        <input id="alert-webhook" type="url" inputMode="url" placeholder="https://example.com/hooks/agent-rental" value={url} onChange={(e) => setUrl(e.target.value)} aria-describedby="alert-webhook-help" />
        <span id="alert-webhook-help" className="muted">HTTPS. Leave empty to see alerts here only.</span>
      </div>
      <div className="field">
        <label htmlFor="alert-low-balance">Alert when a per-task balance covers fewer than (runs)</label>
        <input id="alert-low-balance" type="number" min={1} step={1} placeholder="No low-balance alert" value={runs} onChange={(e) => setRuns(e.target.value)} />
      </div>
      {save.isError ? <ErrorNote error={save.error} title="The settings were not saved" /> : null}
      {save.isSuccess && !secret ? (
        <div className="notice notice-ok" role="status">
          Alert settings saved.
        </div>
      ) : null}
      {secret ? (
        <div className="notice notice-warn stack" role="alert">
          <span>Your webhook's signing secret. Copy it now: it is shown this once. Check every delivery's signature with it (Standard Webhooks).</span>
          <code className="key-reveal" data-testid="alert-webhook-secret" aria-label="Webhook signing secret">
            {secret}
          </code>
        </div>
      ) : null}
      <div className="row" style={{ justifyContent: "flex-end" }}>
        {current.created_at ? (
          <button className="btn" type="button" disabled={save.isPending} onClick={() => save.mutate(true)}>
            New signing secret
          </button>
        ) : null}
        <button className="btn btn-primary" type="submit" disabled={save.isPending}>
          Save alert settings
        </button>
      </div>
    </form>
  );
}

/** The currency of each rented listing, by listing id (a charge cap counts in its listing's currency). */
type ListingCurrencies = ReadonlyMap<string, { symbol: string; decimals: number }>;

function describe(alert: Alert, limitCurrencies: readonly LimitCurrency[], listingCurrencies: ListingCurrencies): string {
  const d = alert.data as Record<string, string | number | null | undefined>;
  if (alert.type === "low_balance") return `A per-task balance of listing ${String(d.listing_id).slice(0, 14)}… covers ${d.runs_left} run(s), below your ${d.threshold_runs}.`;
  if (alert.type === "charge_cap") {
    const currency = listingCurrencies.get(String(d.listing_id));
    const amount = (units: string | number | null | undefined) => (currency ? formatAmount(String(units), currency) : `${String(units)} units`);
    const cap = `${amount(d.amount)} per ${Number(d.period_seconds) % 86_400 === 0 ? `${Number(d.period_seconds) / 86_400} day(s)` : `${d.period_seconds} s`}`;
    const listing = `listing ${String(d.listing_id).slice(0, 14)}…`;
    return d.threshold === 100 ? `Your on-chain charge cap of ${cap} on ${listing} is reached: no further run fits until ${d.resets_at}.` : `${amount(d.spent)} charged on ${listing}, 80% of your on-chain charge cap of ${cap}.`;
  }
  const who = d.scope === "app" ? "An app" : "A key";
  const per = d.period === "total" ? "in total" : `this ${d.period}`;
  const amount = (units: string | number | null | undefined) => formatLimitAmount(String(units), String(d.currency ?? "ETH"), limitCurrencies);
  const limit = `${amount(d.amount)} ${per}`;
  return d.threshold === 100 ? `${who} reached its limit of ${limit}: no further run fits.` : `${who} has spent ${amount(d.spent)}, 80% of its limit of ${limit}.`;
}

const DELIVERY: Record<Alert["delivery"], string> = { pending: "Being delivered", delivered: "Delivered", failed: "Not delivered", no_webhook: "No webhook" };

function AlertList({ alerts }: { alerts: Alert[] }) {
  const limitCurrencies = useLimitCurrencies();
  const rentals = useAllCredentials();
  const listingCurrencies: ListingCurrencies = new Map((rentals.data?.credentials ?? []).map((c) => [c.listing_id, c.currency]));
  if (alerts.length === 0) return <Empty>No alerts yet.</Empty>;
  return (
    <div className="card table-wrap">
      <table>
        <caption className="visually-hidden">Your newest alerts</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col">Webhook</th>
          </tr>
        </thead>
        <tbody>
          {alerts.map((alert) => (
            <tr key={alert.alert_id} data-testid="alert-row">
              <td>{formatTime(alert.created_at)}</td>
              <td>{describe(alert, limitCurrencies, listingCurrencies)}</td>
              <td title={alert.last_error ?? undefined}>{DELIVERY[alert.delivery]}{alert.delivery === "failed" && alert.last_error ? `: ${alert.last_error}` : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
