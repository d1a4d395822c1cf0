// Benchmark output in one format: `name: value unit (ratio vs baseline)`; baselines are measured in the same run.
export interface Measurement {
  name: string;
  value: number;
  unit: string;
}

export function report(m: Measurement, baseline?: Measurement & { label?: string }): void {
  const value = formatNumber(m.value);
  if (!baseline) {
    console.log(`${m.name}: ${value} ${m.unit}`);
    return;
  }
  const ratio = m.value / baseline.value;
  console.log(`${m.name}: ${value} ${m.unit} (${ratio.toFixed(2)}x ${baseline.label ?? baseline.name})`);
}

export function formatNumber(v: number): string {
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString("en-US");
  return v.toFixed(Math.abs(v) >= 10 ? 1 : 3);
}

/** Time an async function; returns seconds. */
export async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
