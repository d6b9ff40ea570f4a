// The metrics adapters: the cloud adapter's stdout is valid CloudWatch embedded metric format (checked
// line by line against the EMF specification's structure), and the in-process aggregate's counters and
// percentiles. The Lambda-shaped log lines keep the value-based redaction.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createEmfMetrics } from "./emf.ts";
import { createMemoryMetrics } from "./memory.ts";
import { METRIC_CATALOGUE } from "./port.ts";
import { observedFetch } from "../../observability/chain-calls.ts";

/** Runs `work` with process.stdout captured (what Lambda ships to CloudWatch Logs). */
async function captureStdout(work: () => void | Promise<void>): Promise<string[]> {
  const original = process.stdout.write.bind(process.stdout);
  const chunks: string[] = [];
  process.stdout.write = ((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return true;
  }) as typeof process.stdout.write;
  try {
    await work();
  } finally {
    process.stdout.write = original;
  }
  return chunks.join("").split("\n").filter((line) => line.trim() !== "");
}

/** The EMF specification's structure: _aws.Timestamp (epoch ms), _aws.CloudWatchMetrics[] of
 * {Namespace, Dimensions: string[][], Metrics: {Name, Unit}[]}, and a top-level member for every
 * metric and every dimension named. */
function expectValidEmf(line: Record<string, unknown>): void {
  const aws = line._aws as { Timestamp: unknown; CloudWatchMetrics: unknown };
  expect(typeof aws.Timestamp).toBe("number");
  expect(Math.abs((aws.Timestamp as number) - Date.now())).toBeLessThan(60_000);
  expect(Array.isArray(aws.CloudWatchMetrics)).toBe(true);
  for (const directive of aws.CloudWatchMetrics as { Namespace: unknown; Dimensions: unknown; Metrics: unknown }[]) {
    expect(typeof directive.Namespace).toBe("string");
    expect(Array.isArray(directive.Dimensions)).toBe(true);
    for (const set of directive.Dimensions as unknown[]) {
      expect(Array.isArray(set)).toBe(true);
      expect((set as unknown[]).length).toBeLessThanOrEqual(30);
      for (const name of set as unknown[]) expect(typeof line[name as string]).toBe("string");
    }
    expect((directive.Metrics as unknown[]).length).toBeGreaterThan(0);
    for (const metric of directive.Metrics as { Name: unknown; Unit: unknown }[]) {
      expect(typeof metric.Name).toBe("string");
      expect(["Count", "Milliseconds", "None"]).toContain(metric.Unit);
      expect(typeof line[metric.Name as string]).toBe("number");
    }
  }
}

describe("the cloud metrics adapter (Powertools EMF)", () => {
  it("writes one valid EMF line per figure on stdout, with its unit and dimensions, and feeds the aggregate", async () => {
    const aggregate = createMemoryMetrics();
    const metrics = createEmfMetrics({ namespace: "agents", serviceName: "agents", aggregate });
    const lines = await captureStdout(() => {
      metrics.count("RunsStarted");
      metrics.count("RunsFailed", 1, { reason: "timeout" });
      metrics.observe("RunDuration", 1234);
      metrics.gauge("SettlementsPending", 3);
      metrics.charged(1_000_000_000_000_000n);
    });
    expect(lines).toHaveLength(6);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    parsed.forEach(expectValidEmf);
    const byMetric = new Map(parsed.map((line) => [((line._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] }).CloudWatchMetrics[0]!.Metrics[0]!.Name), line]));
    expect(byMetric.get("RunsStarted")).toMatchObject({ RunsStarted: 1, service: "agents" });
    const failed = byMetric.get("RunsFailed")!;
    expect(failed).toMatchObject({ RunsFailed: 1, reason: "timeout", service: "agents" });
    expect((failed._aws as { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: unknown[] }[] }).CloudWatchMetrics[0]).toMatchObject({
      Namespace: "agents",
      Dimensions: [expect.arrayContaining(["service", "reason"])],
      Metrics: [{ Name: "RunsFailed", Unit: "Count" }],
    });
    expect((byMetric.get("RunDuration")!._aws as { CloudWatchMetrics: { Metrics: unknown[] }[] }).CloudWatchMetrics[0]!.Metrics).toEqual([{ Name: "RunDuration", Unit: "Milliseconds" }]);
    expect(byMetric.get("SettlementsPending")).toMatchObject({ SettlementsPending: 3 });
    expect(byMetric.get("ChargedWei")).toMatchObject({ ChargedWei: 1e15 });
    expect(byMetric.get("RunsCharged")).toMatchObject({ RunsCharged: 1 });

    const snapshot = metrics.snapshot();
    expect(snapshot.counters.RunsFailed).toEqual({ total: 1, by: { timeout: 1 } });
    expect(snapshot.chargedWei).toBe("1000000000000000");
  });

  it("names only metrics of the catalogue, each with a CloudWatch unit", () => {
    for (const [name, { unit }] of Object.entries(METRIC_CATALOGUE)) {
      expect(name).toMatch(/^[A-Za-z]{1,255}$/);
      expect(["Count", "Milliseconds", "None"]).toContain(unit);
    }
  });
});

describe("the in-process aggregate", () => {
  it("keeps counters by dimension, gauges, exact charges and percentiles", () => {
    const metrics = createMemoryMetrics();
    for (let i = 1; i <= 100; i++) metrics.observe("RunDuration", i * 10);
    metrics.count("RunsFailed", 1, { reason: "timeout" });
    metrics.count("RunsFailed", 1, { reason: "timeout" });
    metrics.count("RunsFailed", 1, { reason: "invalid_output" });
    metrics.gauge("SandboxIdle", 2);
    metrics.charged(2n ** 60n + 1n);
    metrics.charged(1n);
    const snapshot = metrics.snapshot();
    expect(snapshot.counters.RunsFailed).toEqual({ total: 3, by: { timeout: 2, invalid_output: 1 } });
    expect(snapshot.counters.RunsCharged?.total).toBe(2);
    expect(snapshot.chargedWei).toBe((2n ** 60n + 2n).toString());
    expect(snapshot.gauges.SandboxIdle).toBe(2);
    const duration = snapshot.histograms.RunDuration!;
    expect(duration.count).toBe(100);
    expect(duration.p50).toBeGreaterThanOrEqual(495);
    expect(duration.p50).toBeLessThanOrEqual(505);
    expect(duration.p95).toBeGreaterThanOrEqual(945);
    expect(duration.p95).toBeLessThanOrEqual(955);
    expect(duration.p99).toBeGreaterThanOrEqual(985);
    expect(duration.max).toBeGreaterThanOrEqual(999);
    expect(duration.max).toBeLessThanOrEqual(1001);
  });

  it("times chain calls through the transport's fetch, counting failures", async () => {
    const metrics = createMemoryMetrics();
    const fetchFn = observedFetch(metrics, async (input) => {
      if (String(input).includes("down")) throw new TypeError("fetch failed");
      return new Response("{}", { status: String(input).includes("bad") ? 502 : 200 });
    });
    await fetchFn("http://node/ok");
    await fetchFn("http://node/bad");
    await expect(fetchFn("http://node/down")).rejects.toThrow("fetch failed");
    const snapshot = metrics.snapshot();
    expect(snapshot.histograms.ChainCallLatency?.count).toBe(3);
    expect(snapshot.counters.ChainCallErrors?.total).toBe(2);
  });
});

describe("Lambda-shaped log lines", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of ["AWS_LAMBDA_FUNCTION_NAME", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "_X_AMZN_TRACE_ID"]) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });

  it("carry Powertools' keys and the Lambda context, and still redact every secret by name and by shape", async () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = "agents-api";
    process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE = "1024";
    process.env._X_AMZN_TRACE_ID = "Root=1-65f0a1b2-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1";
    const lines: string[] = [];
    // A cold start is the first load of the logger in a fresh environment: load it (and the tracing
    // wrapper that marks it warm) anew, as a new Lambda environment would.
    vi.resetModules();
    const { createLogger, markWarm } = await import("../../logger.ts");
    const { traced } = await import("../../observability/tracing.ts");
    const logger = createLogger("info", (line) => lines.push(line), { format: "lambda", service: "agents" });
    const apiKey = "svc_live_Zx81kQ_3mPqv0LrT9sWn";
    const jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIweDEifQ.c2lnbmF0dXJlLWhlcmU";
    logger.info(`refused ${apiKey}`, { authorization: `Bearer ${jwt}`, detail: `header was Bearer ${jwt}`, nested: { provider_key: "sk-live-123" }, route: "/v1/execute" });
    // the handler wrapper marks the environment warm after its first invocation (no-op tracing locally)
    await traced("test", async () => undefined)();
    logger.info("second");
    markWarm();
    const [first, second] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({
      level: "INFO",
      message: "refused [redacted]",
      service: "agents",
      cold_start: true,
      function_name: "agents-api",
      function_memory_size: 1024,
      xray_trace_id: "1-65f0a1b2-0123456789abcdef01234567",
      route: "/v1/execute",
      authorization: "[redacted]",
      detail: "header was Bearer [redacted]",
    });
    expect(typeof first!.timestamp).toBe("string");
    expect(second).toMatchObject({ cold_start: false });
    const text = lines.join("\n");
    for (const secret of [apiKey, jwt, "c2lnbmF0dXJl", "sk-live-123"]) expect(text).not.toContain(secret);
  });
});
