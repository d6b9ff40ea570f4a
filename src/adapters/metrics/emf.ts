// The cloud adapter of the metrics port: Powertools for AWS Lambda's Metrics, which writes each figure as
// one line of CloudWatch embedded metric format (EMF) JSON on stdout; on Lambda, CloudWatch Logs turns
// those lines into metrics with no API call and no agent. Every figure also goes to the in-process
// aggregate handed in, so GET /v1/health reports this instance's share.
//
// Each figure is flushed at once (a single-metric instance): a Lambda environment may be frozen right
// after its response, and a figure buffered until a later invocation would land late or never.
import { Metrics as PowertoolsMetrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import type { Logger } from "../../logger.ts";
import { METRIC_CATALOGUE, type Dimensions, type MetricName, type Metrics } from "./port.ts";

export interface EmfMetricsOptions {
  /** The CloudWatch namespace the metrics are filed under. */
  namespace: string;
  /** The `service` dimension on every metric. */
  serviceName: string;
  /** Receives the figures as well (the in-process aggregate). */
  aggregate: Metrics;
  /** Where Powertools' own warnings go (a metric refused for its name or value, for example). */
  logger?: Logger;
}

const UNIT = { Count: MetricUnit.Count, Milliseconds: MetricUnit.Milliseconds, None: MetricUnit.NoUnit } as const;

export function createEmfMetrics(options: EmfMetricsOptions): Metrics {
  const say = (at: "debug" | "info" | "warn" | "error") => (...args: unknown[]) => options.logger?.[at]("metrics: " + args.map(String).join(" "));
  const powertools = new PowertoolsMetrics({
    namespace: options.namespace,
    serviceName: options.serviceName,
    ...(options.logger ? { logger: { debug: say("debug"), info: say("info"), warn: say("warn"), error: say("error") } } : {}),
  });
  const emit = (name: MetricName, value: number, dimensions?: Dimensions) => {
    const single = powertools.singleMetric();
    if (dimensions) single.addDimensions(dimensions);
    single.addMetric(name, UNIT[METRIC_CATALOGUE[name].unit], value);
  };
  const { aggregate } = options;
  return {
    count(name, value = 1, dimensions) {
      aggregate.count(name, value, dimensions);
      emit(name, value, dimensions);
    },
    observe(name, value, dimensions) {
      aggregate.observe(name, value, dimensions);
      emit(name, value, dimensions);
    },
    gauge(name, value) {
      aggregate.gauge(name, value);
      emit(name, value);
    },
    charged(wei) {
      aggregate.charged(wei);
      emit("RunsCharged", 1);
      // CloudWatch stores doubles: the sum is exact to ~15 digits, which is enough for a dashboard; the
      // exact figure is on-chain (QueryConsumed events).
      emit("ChargedWei", Number(wei));
    },
    snapshot: () => aggregate.snapshot(),
  };
}
