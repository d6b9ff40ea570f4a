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
