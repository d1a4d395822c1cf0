// CPU time the hypervisor gave to other guests (Linux /proc/stat "steal"). This machine is a shared
// VM: a latency tail measured while the host was busy says more of the host than of Scribe, so a
// bench prints the stolen share of the window next to its figures.
import { readFileSync } from "node:fs";

type Ticks = { total: number; steal: number };

function ticks(): Ticks | null {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return null;
  }
}

/** Starts a window; `stolen()` is the share of the machine's CPU time stolen since, as "4.2 %" (or "unknown" off Linux). */
export function stealWindow(): { stolen(): string } {
  const before = ticks();
  return {
    stolen() {
      const after = ticks();
      if (!before || !after || after.total <= before.total) return "unknown";
      return `${(((after.steal - before.steal) / (after.total - before.total)) * 100).toFixed(1)} %`;
    },
  };
}
