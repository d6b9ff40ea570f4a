// The metrics port: what the service counts and times, by name. In the cloud each figure is written as
// CloudWatch embedded metric format (EMF) on stdout, which CloudWatch Logs turns into metrics (emf.ts);
// every process also keeps an in-process aggregate (memory.ts) that GET /v1/health reports. Names,
// units and dimensions are listed here once, so the code, the EMF output and docs/guides/operator.md agree.

/** Every metric the service emits: its unit and whether it is a counter, a histogram or a gauge. */
export const METRIC_CATALOGUE = {
  /** A run was admitted (every check passed, its holds taken). */
  RunsStarted: { unit: "Count", kind: "counter" },
  RunsCompleted: { unit: "Count", kind: "counter" },
  /** Dimension `reason`: the run's error code (timeout, invalid_output, agent_http_error, ...). */
  RunsFailed: { unit: "Count", kind: "counter" },
  /** The run's duration as its Run reports it (duration_ms). */
  RunDuration: { unit: "Milliseconds", kind: "histogram" },
  /** Request received → run admitted and handed to the agent's sandbox or webhook. */
  StartOfExecution: { unit: "Milliseconds", kind: "histogram" },
  /** Per-query runs charged on-chain, and the wei they were charged (a sum; exact in health). */
  RunsCharged: { unit: "Count", kind: "counter" },
  ChargedWei: { unit: "None", kind: "counter" },
  /** Per-query runs whose charge could not be confirmed when they finished (left to the settlement pass). */
  SettlementsDeferred: { unit: "Count", kind: "counter" },
  /** Per-query charges the contract refused. */
  SettlementsRefused: { unit: "Count", kind: "counter" },
  /** A deferred charge resolved by the settlement pass: how long after the run finished. */
  SettlementLag: { unit: "Milliseconds", kind: "histogram" },
  /** Deferred charges still waiting after a settlement pass. */
  SettlementsPending: { unit: "Count", kind: "gauge" },
  /** Charge batches the settler saw end. Dimension `outcome`: mined | reverted | out_of_gas. */
  SettlerBatches: { unit: "Count", kind: "counter" },
  /** Charges in each mined batch, and the gas each charge cost (the batch's gas over its charges). */
  ChargesPerBatch: { unit: "Count", kind: "histogram" },
  GasPerCharge: { unit: "None", kind: "histogram" },
  /** One JSON-RPC round trip to the chain node (a batch counts once). Dimension `outcome`: ok | error. */
  ChainCallLatency: { unit: "Milliseconds", kind: "histogram" },
  ChainCallErrors: { unit: "Count", kind: "counter" },
  /** Requests answered, and their duration (to the response's headers). Dimension `status_class`. */
  Requests: { unit: "Count", kind: "counter" },
  RequestDuration: { unit: "Milliseconds", kind: "histogram" },
  /** Sampled by GET /v1/health (so a canary polling health turns them into metrics): messages in the
   * registration queue and its dead-letter queue (visible and in flight), and the authority's balance. */
  RegistrationQueueDepth: { unit: "Count", kind: "gauge" },
  RegistrationDlqDepth: { unit: "Count", kind: "gauge" },
  /** Sampled by GET /v1/health: charges on the settlement queue (visible and in flight), not yet decided. */
  SettlementQueueDepth: { unit: "Count", kind: "gauge" },
  AuthorityBalanceWei: { unit: "None", kind: "gauge" },
  /** Sandbox pool (local sandboxes): pre-started and busy sandboxes, sampled when a run finishes. */
  SandboxIdle: { unit: "Count", kind: "gauge" },
  SandboxBusy: { unit: "Count", kind: "gauge" },
} as const;

export type MetricName = keyof typeof METRIC_CATALOGUE;
export type MetricUnit = (typeof METRIC_CATALOGUE)[MetricName]["unit"];

/** Low-cardinality labels only (an error code, an outcome): never a wallet, a key, a run or a listing id. */
export type Dimensions = Record<string, string>;

export interface HistogramSummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** The in-process aggregate since `since`: counters (by dimension value where there is one), histograms
 * as percentiles, and the last value of each gauge. */
export interface MetricsSnapshot {
  since: string;
  counters: Partial<Record<MetricName, { total: number; by: Record<string, number> }>>;
  histograms: Partial<Record<MetricName, HistogramSummary>>;
  gauges: Partial<Record<MetricName, number>>;
  /** The exact sum of ChargedWei (a decimal string: wei exceed 2^53). */
  chargedWei: string;
}

export interface Metrics {
  /** Adds `value` (default 1) to a counter. */
  count(name: MetricName, value?: number, dimensions?: Dimensions): void;
  /** Records one observation of a histogram (a duration). */
  observe(name: MetricName, value: number, dimensions?: Dimensions): void;
  /** Sets a gauge to its current value. */
  gauge(name: MetricName, value: number): void;
  /** Counts a charge exactly (ChargedWei and RunsCharged). */
  charged(wei: bigint): void;
  /** This process's aggregate. */
  snapshot(): MetricsSnapshot;
}
