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
