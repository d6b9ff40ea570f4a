// The in-process aggregate of the metrics port: counters, gauges, and histograms kept as HDR histograms
// (hdr-histogram-js: fixed memory, percentiles to 3 significant digits however many values are
// recorded). It is what GET /v1/health reports locally; in the cloud it is this instance's share.
import { build, type Histogram } from "hdr-histogram-js";
import type { Dimensions, HistogramSummary, MetricName, Metrics, MetricsSnapshot } from "./port.ts";

function dimensionKey(dimensions: Dimensions | undefined): string | undefined {
  if (!dimensions) return undefined;
  const values = Object.values(dimensions);
  return values.length === 0 ? undefined : values.join("/");
}

function summary(histogram: Histogram): HistogramSummary {
  return {
    count: histogram.totalCount,
    p50: histogram.getValueAtPercentile(50),
    p95: histogram.getValueAtPercentile(95),
    p99: histogram.getValueAtPercentile(99),
    max: histogram.maxValue,
  };
}

export function createMemoryMetrics(): Metrics {
  const since = new Date().toISOString();
  const counters = new Map<MetricName, { total: number; by: Map<string, number> }>();
  const histograms = new Map<MetricName, Histogram>();
  const gauges = new Map<MetricName, number>();
  let chargedWei = 0n;

  const count = (name: MetricName, value = 1, dimensions?: Dimensions) => {
    const counter = counters.get(name) ?? { total: 0, by: new Map<string, number>() };
    counter.total += value;
    const key = dimensionKey(dimensions);
    if (key !== undefined) counter.by.set(key, (counter.by.get(key) ?? 0) + value);
    counters.set(name, counter);
  };

  return {
    count,
    observe(name, value) {
      if (!Number.isFinite(value) || value < 0) return;
      let histogram = histograms.get(name);
      if (!histogram) {
        histogram = build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000, numberOfSignificantValueDigits: 3 });
        histograms.set(name, histogram);
      }
      histogram.recordValue(Math.round(value));
    },
    gauge(name, value) {
      gauges.set(name, value);
    },
    charged(wei) {
      chargedWei += wei;
      count("RunsCharged");
      count("ChargedWei", Number(wei));
    },
    snapshot(): MetricsSnapshot {
      return {
        since,
        counters: Object.fromEntries([...counters].map(([name, c]) => [name, { total: c.total, by: Object.fromEntries(c.by) }])),
        histograms: Object.fromEntries([...histograms].map(([name, h]) => [name, summary(h)])),
        gauges: Object.fromEntries(gauges),
        chargedWei: chargedWei.toString(),
      };
    },
  };
}
