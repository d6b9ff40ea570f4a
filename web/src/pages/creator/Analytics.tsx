// The creator's analytics (GET /v1/creators/me/analytics, or one listing's): revenue over time in each
// currency (ETH, and each token in its own units, never added together), runs and latency over time, each
// chart with its own range, the top renters by spend in each currency (wallet addresses only), CSV export
// of every table, and whether the figures match the chain
// ("matches the chain as of block N"). Charts are recharts (SVG, composable React components, kept up by
// its maintainers), loaded with this page only.
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { AnalyticsRange, CreatorAnalytics } from "@agent-rental/sdk";
import { formatEther, formatUnits } from "viem";
import { useClient } from "../../api/hooks.ts";
import { useSession } from "../../auth/session.tsx";
import { Empty, ErrorNote, Loading } from "../../ui/notices.tsx";
import { formatWei } from "../../ui/format.ts";

const RANGES = {
  "24h": { label: "Last 24 hours", hours: 24, granularity: "hour" },
  "7d": { label: "Last 7 days", hours: 24 * 7, granularity: "hour" },
  "30d": { label: "Last 30 days", hours: 24 * 30, granularity: "day" },
  "12m": { label: "Last 12 months", hours: 24 * 365, granularity: "month" },
} as const;
type RangeKey = keyof typeof RANGES;

function rangeOf(key: RangeKey): AnalyticsRange {
  const to = new Date();
  return { from: new Date(to.getTime() - RANGES[key].hours * 3_600_000), to, granularity: RANGES[key].granularity };
}

function useAnalytics(listingId: string, key: RangeKey) {
  const client = useClient();
  const { session } = useSession();
  return useQuery<CreatorAnalytics>({
    queryKey: ["auth", session?.wallet, "/v1/creators/me/analytics", listingId, key],
    queryFn: ({ signal }) => {
      const range = { ...rangeOf(key), signal };
      return listingId ? client.creators.listingAnalytics(listingId, range) : client.creators.analytics(range);
    },
    enabled: Boolean(session),
  });
}

function RangeSelect({ value, onChange, label }: { value: RangeKey; onChange: (key: RangeKey) => void; label: string }) {
  return (
    <label className="row" style={{ gap: ".4rem" }}>
      <span className="muted">{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value as RangeKey)}>
        {Object.entries(RANGES).map(([key, r]) => (
          <option key={key} value={key}>
            {r.label}
          </option>
        ))}
      </select>
    </label>
  );
}

const eth = (wei: bigint) => Number(formatEther(wei));

function ChartCard({ title, listingId, initial, children }: { title: string; listingId: string; initial: RangeKey; children: (data: CreatorAnalytics) => React.ReactElement }) {
  const [range, setRange] = useState<RangeKey>(initial);
  const data = useAnalytics(listingId, range);
  return (
    <section className="card stack" aria-label={title}>
      <div className="row" style={{ justifyContent: "space-between", flexWrap: "wrap" }}>
        <h2 style={{ margin: 0 }}>{title}</h2>
        <RangeSelect value={range} onChange={setRange} label={`${title} range`} />
      </div>
      {data.isPending ? <Loading label={`Loading ${title.toLowerCase()}`} /> : !data.data ? <ErrorNote error={data.error} title={`${title} could not be loaded`} /> : <div style={{ width: "100%", height: 240 }}>{children(data.data)}</div>}
    </section>
  );
}

type Period = CreatorAnalytics["series"][number];
interface ChartLine {
  key: string;
  name: string;
  color: string;
  value: (period: Period) => number | null;
}

const HOUR = /^\d{4}-\d{2}-\d{2}T\d{2}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MONTH = /^\d{4}-\d{2}$/;
const hourLabel = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: "UTC" });
const dayLabel = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
const monthLabel = new Intl.DateTimeFormat(undefined, { month: "short", year: "numeric", timeZone: "UTC" });

/** A period of the series as a reader says it, in UTC as the periods are cut: "2026-11-26T09" is
 * "Nov 26, 09:00", "2026-11-26" "Nov 26", "2026-11" "Nov 2026"; anything else as it is. */
export function periodLabel(period: string): string {
  if (HOUR.test(period)) return hourLabel.format(new Date(`${period}:00:00Z`));
  if (DAY.test(period)) return dayLabel.format(new Date(`${period}T00:00:00Z`));
  if (MONTH.test(period)) return monthLabel.format(new Date(`${period}-01T00:00:00Z`));
  return period;
}

/** Whole-number ticks from 0 up to at least `max` (about five), so counts never show fractions. */
export function countTicks(max: number): number[] {
  const step = Math.max(1, Math.ceil(max / 4));
  const ticks = [0];
  while (ticks.at(-1)! < max) ticks.push(ticks.at(-1)! + step);
  return ticks.length > 1 ? ticks : [0, 1];
}

/**
 * One chart card: a title, its range, and the series as stacked bars or lines. `counts`: whole-number
 * axis ticks (a run is never a fraction). A line with a single point is drawn as a dot.
 */
function SeriesChart({ title, listingId, initial, kind, lines, unit, counts }: { title: string; listingId: string; initial: RangeKey; kind: "bar" | "line"; lines: ChartLine[]; unit?: string; counts?: boolean }) {
  return (
    <ChartCard title={title} listingId={listingId} initial={initial}>
      {(d) => {
        const data = d.series.map((p) => Object.fromEntries([["period", p.period], ...lines.map((l) => [l.key, l.value(p)])]) as Record<string, string | number | null>);
        const max = Math.max(0, ...data.map((row) => lines.reduce((sum, l) => sum + (Number(row[l.key]) || 0), 0)));
        const ticks = counts ? countTicks(max) : undefined;
        const axes = [
          <CartesianGrid key="grid" strokeDasharray="3 3" />,
          <XAxis key="x" dataKey="period" tick={{ fontSize: 11 }} tickFormatter={periodLabel} />,
          <YAxis key="y" tick={{ fontSize: 11 }} width={unit ? 80 : 40} {...(unit ? { unit } : {})} allowDecimals={!counts} {...(ticks ? { ticks, domain: [0, ticks.at(-1)!], interval: 0 } : {})} />,
          <Tooltip key="tip" labelFormatter={(period) => `${periodLabel(String(period))}${HOUR.test(String(period)) ? " UTC" : ""}`} />,
          <Legend key="legend" />,
        ];
        return (
          <ResponsiveContainer>
            {kind === "bar" ? (
              <BarChart data={data}>
                {axes}
                {lines.map((l) => <Bar key={l.key} dataKey={l.key} name={l.name} stackId={title} fill={l.color} />)}
              </BarChart>
            ) : (
              <LineChart data={data}>
                {axes}
                {lines.map((l) => {
                  const points = data.filter((row) => row[l.key] !== null && row[l.key] !== undefined).length;
                  return <Line key={l.key} dataKey={l.key} name={l.name} stroke={l.color} connectNulls dot={points === 1 ? { r: 4, fill: l.color } : false} />;
                })}
              </LineChart>
            )}
          </ResponsiveContainer>
        );
      }}
    </ChartCard>
  );
}

/** A table of renters by spend, each amount already written in its currency. */
function RentersTable({ label, renters }: { label: string; renters: { wallet: string; spent: string; runs: number | string; purchases: number | string; renewals: number | string }[] }) {
  return (
    <div style={{ overflowX: "auto" }}>
      <table aria-label={label}>
        <thead>
          <tr><th scope="col">Wallet</th><th scope="col">Spent</th><th scope="col">Runs</th><th scope="col">Rentals</th></tr>
        </thead>
        <tbody>
          {renters.map((t) => (
            <tr key={t.wallet}>
              <td><code>{t.wallet}</code></td>
              <td>{t.spent}</td>
              <td>{String(t.runs)}</td>
              <td>{String(Number(t.purchases) + Number(t.renewals))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

/** The analytics of the creator's listings (all, or the one chosen). */
export function CreatorAnalyticsPanel({ listings }: { listings: { listing_id: string; name: string }[] }) {
  const [listingId, setListingId] = useState("");
  const client = useClient();
  const summary = useAnalytics(listingId, "30d");
  if (summary.isPending) return <Loading label="Loading your analytics" />;
  if (!summary.data) return <ErrorNote error={summary.error} title="Your analytics could not be loaded" />;
  const s = summary.data;
  const r = s.reconciliation;
  const csv = async (table: "series" | "top_renters" | "series_by_currency" | "top_renters_by_currency") => download(`analytics-${table}.csv`, await client.creators.analyticsCsv({ ...rangeOf("30d"), table, ...(listingId ? { listingId } : {}) }));
  // The token currencies of the listings read: each gets its own revenue chart and renters table, in its units.
  const tokens = s.totals.by_currency.filter((c) => c.currency.address !== null).map((c) => c.currency);
  const tokenRenters = s.top_renters_by_currency.filter((g) => g.currency.address !== null && g.renters.length > 0);
  return (
    <div className="stack">
      <div className="row" style={{ justifyContent: "space-between", flexWrap: "wrap", gap: ".5rem" }}>
        <label className="row" style={{ gap: ".4rem" }}>
          <span className="muted">Listing</span>
          <select value={listingId} onChange={(e) => setListingId(e.target.value)} aria-label="Listing">
            <option value="">All my listings</option>
            {listings.map((l) => (
              <option key={l.listing_id} value={l.listing_id}>
                {l.name}
              </option>
            ))}
          </select>
        </label>
        <p role="status" aria-label="Reconciliation" className={r.matches ? "ok" : "warn"} style={{ margin: 0 }}>
          {r.block === null ? "Not reconciled yet: the chain's index has not counted a block." : r.matches ? `Matches the chain as of block ${r.block}` : `Does not match the chain as of block ${r.block}`}
        </p>
      </div>
      <dl className="figures" aria-label="Last 30 days">
        <div><dt>Net revenue (30 days)</dt><dd>{formatWei(s.totals.revenue.net_wei)}</dd></div>
        {/* A token listing's revenue, in its own currency (never added to the ETH figures). */}
        {s.totals.by_currency.filter((c) => c.currency.address !== null).map((c) => (
          <div key={c.currency.address}><dt>Net revenue in {c.currency.symbol} (30 days)</dt><dd>{`${formatUnits(BigInt(c.revenue.net), c.currency.decimals)} ${c.currency.symbol}`}</dd></div>
        ))}
        <div><dt>Protocol fee</dt><dd>{formatWei(s.totals.revenue.fee_wei)}</dd></div>
        <div><dt>Runs</dt><dd>{s.totals.runs.completed} completed, {s.totals.runs.failed} failed</dd></div>
        <div><dt>Latency p95</dt><dd>{s.totals.latency.p95_ms === null ? "–" : `${s.totals.latency.p95_ms} ms`}</dd></div>
        <div><dt>Withdrawable now</dt><dd>{r.withdrawable_wei === null ? "–" : formatWei(r.withdrawable_wei)}</dd></div>
        <div><dt>Still vesting</dt><dd>{r.vesting_wei === null ? "–" : formatWei(r.vesting_wei)}</dd></div>
      </dl>
      <div className="grid analytics-charts">
        <SeriesChart title="Revenue" listingId={listingId} initial="30d" kind="bar" unit=" ETH" lines={[
          { key: "net", name: "Net (ETH)", color: "#2563eb", value: (p) => eth(p.revenue.net_wei) },
          { key: "fee", name: "Protocol fee (ETH)", color: "#93c5fd", value: (p) => eth(p.revenue.fee_wei) },
        ]} />
        {tokens.map((currency) => {
          const inToken = (p: Period, pick: (revenue: { net: string; fee: string }) => string) => {
            const group = p.by_currency.find((c) => c.currency.address === currency.address);
            return group ? Number(formatUnits(BigInt(pick(group.revenue)), currency.decimals)) : 0;
          };
          return (
            <SeriesChart key={currency.address} title={`Revenue in ${currency.symbol}`} listingId={listingId} initial="30d" kind="bar" unit={` ${currency.symbol}`} lines={[
              { key: "net", name: `Net (${currency.symbol})`, color: "#0d9488", value: (p) => inToken(p, (r) => r.net) },
              { key: "fee", name: `Protocol fee (${currency.symbol})`, color: "#99f6e4", value: (p) => inToken(p, (r) => r.fee) },
            ]} />
          );
        })}
        <SeriesChart title="Runs" listingId={listingId} initial="7d" kind="bar" counts lines={[
          { key: "completed", name: "Completed", color: "#16a34a", value: (p) => Number(p.runs.completed) },
          { key: "failed", name: "Failed", color: "#dc2626", value: (p) => Number(p.runs.failed) },
        ]} />
        <SeriesChart title="Latency" listingId={listingId} initial="7d" kind="line" unit=" ms" lines={[
          { key: "p50", name: "p50", color: "#2563eb", value: (p) => p.latency.p50_ms },
          { key: "p95", name: "p95", color: "#f97316", value: (p) => p.latency.p95_ms },
        ]} />
      </div>
      <section className="card stack" aria-label="Top renters">
        <div className="row" style={{ justifyContent: "space-between", flexWrap: "wrap" }}>
          <h2 style={{ margin: 0 }}>Top renters</h2>
          <div className="row" style={{ gap: ".4rem" }}>
            <button type="button" onClick={() => void csv("series")}>Export series (CSV)</button>
            <button type="button" onClick={() => void csv("top_renters")}>Export renters (CSV)</button>
            {tokens.length > 0 ? (
              <>
                <button type="button" onClick={() => void csv("series_by_currency")}>Export series per currency (CSV)</button>
                <button type="button" onClick={() => void csv("top_renters_by_currency")}>Export renters per currency (CSV)</button>
              </>
            ) : null}
          </div>
        </div>
        {s.top_renters.length === 0 ? (
          <Empty>No renters yet.</Empty>
        ) : (
          <RentersTable label="Top renters by spend" renters={s.top_renters.map((t) => ({ ...t, spent: formatWei(t.spend_wei) }))} />
        )}
        {tokenRenters.map((g) => (
          <div key={g.currency.address} className="stack">
            <h3 style={{ margin: 0 }}>Top renters in {g.currency.symbol}</h3>
            <RentersTable label={`Top renters by spend in ${g.currency.symbol}`} renters={g.renters.map((t) => ({ ...t, spent: `${formatUnits(BigInt(t.spend), g.currency.decimals)} ${g.currency.symbol}` }))} />
          </div>
        ))}
      </section>
    </div>
  );
}

/** The page: signed-in creators only. */
export function CreatorAnalyticsPage() {
  const { session } = useSession();
  const client = useClient();
  const me = useQuery({ queryKey: ["auth", session?.wallet, "/v1/creators/me"], queryFn: () => client.creators.me(), enabled: Boolean(session) });
  return (
    <div className="stack">
      <h1>Analytics</h1>
      {!session ? (
        <Empty>Sign in with your creator wallet to see your analytics.</Empty>
      ) : me.isPending ? (
        <Loading label="Loading your listings" />
      ) : !me.data ? (
        <ErrorNote error={me.error} title="Your listings could not be loaded" />
      ) : (
        <CreatorAnalyticsPanel listings={me.data.agents.map((a) => ({ listing_id: a.listing_id, name: a.agent_id }))} />
      )}
    </div>
  );
}
