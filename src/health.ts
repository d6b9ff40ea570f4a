// Health of the API's dependencies, each probed with a short timeout, and the figures an operator reads
// first: this process's run, request and latency aggregate (the metrics port), and the depths sampled
// now (sandbox pool, registration queues, the settlement queue, deferred settlements, the authority's gas balance). Nothing
// here names a wallet, a key, a run or a listing.
import type { Ports } from "./ports.ts";
import { readAuthority } from "./chain/read-authority.ts";
import type { HistogramSummary, MetricName, MetricsSnapshot } from "./adapters/metrics/port.ts";
import { countPendingSettlements } from "./execution/money/settlement.store.ts";
import { getSettlerAlarms, type SettlerAlarm } from "./execution/settler/alarms.store.ts";
import { describeTable } from "./adapters/tables/dynamo.ts";

/** What health reads of the process's services. */
type Services = Pick<Ports, "authority" | "chain" | "config" | "metrics" | "queue" | "sandboxStats" | "tables">;

export interface HealthMetrics {
  /** When this process started counting (figures are per process: per Lambda instance in the cloud). */
  since: string;
  runs: {
    started: number;
    completed: number;
    failed: number;
    failed_by_reason: Record<string, number>;
    charged: number;
    /** Exact, in wei (a decimal string). */
    charged_wei: string;
    settlements_deferred: number;
    settlements_refused: number;
  };
  requests: { total: number; by_status_class: Record<string, number> };
  chain_call_errors: number;
  latency_ms: {
    start_of_execution: HistogramSummary | null;
    run_duration: HistogramSummary | null;
    settlement_lag: HistogramSummary | null;
    chain_call: HistogramSummary | null;
    request: HistogramSummary | null;
  };
}

export interface Health {
  status: "ok" | "degraded";
  chain_id: number;
  marketplace: string;
  checks: { tables: boolean; chain: boolean };
  metrics: HealthMetrics;
  /** The local sandbox pool; null until a run started one (and in the cloud, where each run has its own microVM). */
  sandbox: { idle: number; starting: number; busy: number } | null;
  /** Messages in the registration queue and its dead-letter queue (null: could not be read). */
  queues: { registration: number | null; registration_dlq: number | null; settlement: number | null };
  /** Per-query charges the chain could not confirm yet, waiting for the settlement pass; the settler's
   * alarms that are on (null: could not be read). */
  settlements: { pending: number | null; alarms: SettlerAlarm[] | null };
  /** The protocol authority's ETH balance in wei (its gas for settlements and the run log), the
   * authority's address read from the contract where the process holds no key; null when the chain
   * cannot be read. */
  authority: { balance_wei: string } | null;
}

const PROBE_MS = 2_000;
/** The settler rewrites its alarms every few seconds while one is on: a record older than this is a
 * settler that stopped (the queue's age then says how far behind settlement is). */
const ALARMS_FRESH_MS = 2 * 60_000;

async function sample<T>(run: () => Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([run(), new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), PROBE_MS).unref()))]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

async function probe(run: () => Promise<unknown>): Promise<boolean> {
  return (await sample(async () => (await run(), true))) === true;
}

function metricsOf(snapshot: MetricsSnapshot): HealthMetrics {
  const total = (name: MetricName) => snapshot.counters[name]?.total ?? 0;
  const histogram = (name: MetricName) => snapshot.histograms[name] ?? null;
  return {
    since: snapshot.since,
    runs: {
      started: total("RunsStarted"),
      completed: total("RunsCompleted"),
      failed: total("RunsFailed"),
      failed_by_reason: snapshot.counters.RunsFailed?.by ?? {},
      charged: total("RunsCharged"),
      charged_wei: snapshot.chargedWei,
      settlements_deferred: total("SettlementsDeferred"),
      settlements_refused: total("SettlementsRefused"),
    },
    requests: { total: total("Requests"), by_status_class: snapshot.counters.Requests?.by ?? {} },
    chain_call_errors: total("ChainCallErrors"),
    latency_ms: {
      start_of_execution: histogram("StartOfExecution"),
      run_duration: histogram("RunDuration"),
      settlement_lag: histogram("SettlementLag"),
      chain_call: histogram("ChainCallLatency"),
      request: histogram("RequestDuration"),
    },
  };
}

async function pendingSettlements(services: Services): Promise<number> {
  return countPendingSettlements(services.tables);
}

export async function checkHealth(services: Services): Promise<Health> {
  const { config } = services;
  const authority = services.authority;
  // The settler alone holds the key: a process without it reads the authority's address from the contract.
  const authorityAddress = sample(async () => authority?.address ?? (await readAuthority(services.chain)));
  const [tables, chain, registration, registrationDlq, settlementQueue, pending, balance, alarms] = await Promise.all([
    probe(() => describeTable(services.tables, "meta")),
    probe(() => services.chain.client.getChainId()),
    sample(() => services.queue.approximateCount(config.REGISTRATION_QUEUE_URL)),
    sample(() => services.queue.approximateCount(config.REGISTRATION_DLQ_URL)),
    sample(() => services.queue.approximateCount(config.SETTLEMENT_QUEUE_URL)),
    sample(() => pendingSettlements(services)),
    sample(async () => services.chain.client.getBalance({ address: (await authorityAddress) ?? (await readAuthority(services.chain)) })),
    sample(async () => {
      const address = await authorityAddress;
      const record = address ? await getSettlerAlarms(services.tables, address) : null;
      return record && Date.now() - Date.parse(record.updated_at) < ALARMS_FRESH_MS ? record.alarms : [];
    }),
  ]);
  const pool = services.sandboxStats();
  // The sampled depths are gauges as well: a canary polling health makes them alarmable metrics.
  if (registration !== null) services.metrics.gauge("RegistrationQueueDepth", registration);
  if (registrationDlq !== null) services.metrics.gauge("RegistrationDlqDepth", registrationDlq);
  if (settlementQueue !== null) services.metrics.gauge("SettlementQueueDepth", settlementQueue);
  if (pending !== null) services.metrics.gauge("SettlementsPending", pending);
  if (balance !== null) services.metrics.gauge("AuthorityBalanceWei", Number(balance));
  return {
    status: tables && chain ? "ok" : "degraded",
    chain_id: config.CHAIN_ID,
    marketplace: config.MARKETPLACE_ADDRESS,
    checks: { tables, chain },
    metrics: metricsOf(services.metrics.snapshot()),
    sandbox: pool ? { idle: pool.idle, starting: pool.starting, busy: pool.busy } : null,
    queues: { registration, registration_dlq: registrationDlq, settlement: settlementQueue },
    settlements: { pending, alarms },
    authority: balance === null ? null : { balance_wei: balance.toString() },
  };
}
