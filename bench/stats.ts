// Small statistics helpers shared by the benchmarks.
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function summarize(values: number[]): { n: number; p50: number; p95: number; min: number; max: number } {
  return { n: values.length, p50: percentile(values, 50), p95: percentile(values, 95), min: Math.min(...values), max: Math.max(...values) };
}

export const ms = (value: number) => `${value.toFixed(1)} ms`;

export const mean = (values: number[]): number => values.reduce((sum, v) => sum + v, 0) / values.length;

/**
 * The difference of a statistic of two samples (b's less a's) with a 95% interval by the bootstrap: each
 * sample resampled with replacement `rounds` times (a seeded generator, so a run can be replayed).
 */
function bootstrapDifference(a: number[], b: number[], statistic: (values: number[]) => number, rounds: number): { difference: number; low: number; high: number } {
  let seed = 0x9e3779b9;
  const next = () => ((seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 4294967296);
  const resample = (values: number[]) => Array.from(values, () => values[Math.floor(next() * values.length)]!);
  const differences = Array.from({ length: rounds }, () => statistic(resample(b)) - statistic(resample(a))).sort((x, y) => x - y);
  return { difference: statistic(b) - statistic(a), low: differences[Math.floor(0.025 * rounds)]!, high: differences[Math.ceil(0.975 * rounds) - 1]! };
}

/**
 * The difference of two samples' percentile `p` (b's less a's) with a 95% interval by the bootstrap.
 * A p95 of a few hundred latencies moves by milliseconds between runs; the interval says how far.
 */
export function percentileDifference(a: number[], b: number[], p: number, rounds = 2_000): { difference: number; low: number; high: number } {
  return bootstrapDifference(a, b, (values) => percentile(values, p), rounds);
}

/** The difference of two samples' means (b's less a's) with a 95% interval by the bootstrap. */
export function meanDifference(a: number[], b: number[], rounds = 2_000): { difference: number; low: number; high: number } {
  return bootstrapDifference(a, b, mean, rounds);
}

/** Total length of the union of intervals [start, end]: the time during which at least one was open. */
export function unionMs(intervals: [number, number][]): number {
  let total = 0;
  let start = -Infinity;
  let end = -Infinity;
  for (const [s, e] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (s > end) {
      if (end > start) total += end - start;
      [start, end] = [s, e];
    } else if (e > end) end = e;
  }
  return end > start ? total + end - start : total;
}
