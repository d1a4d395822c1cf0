// Which steps of a run became ready, from the step rows alone: pure, so the DAG rules (join,
// fan-out, per-item chaining, empty fan-outs, completion) are unit-tested without a database.
import type { StepDef } from "./definition";

export type StepStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled";
export type RunStatus = "running" | "succeeded" | "failed" | "cancelled";

/** A step row without its output: single step (index and itemCount null), group (itemCount set) or item (index set). */
export interface StepState {
  step: string;
  index: number | null;
  itemCount: number | null;
  status: StepStatus;
}

export type PlanAction =
  /** Create and enqueue the row of a single step. */
  | { type: "create"; step: string }
  /** Call the step's items() and create its group row and one queued row per item. */
  | { type: "expand"; step: string }
  /** Create the group row of a per-item step with as many items as its `of` step. */
  | { type: "open"; step: string; count: number }
  /** Create and enqueue item `index` of a per-item step (its `of` item has succeeded). */
  | { type: "create_item"; step: string; index: number }
  /** Every item of a fan-out succeeded: mark its group row succeeded. */
  | { type: "complete_group"; step: string };

type Def = Pick<StepDef, "name" | "kind" | "after" | "of">;

const key = (step: string, index: number | null) => `${step}\u0000${index ?? ""}`;

class Rows {
  private readonly byKey = new Map<string, StepState>();
  constructor(rows: Iterable<StepState>) {
    for (const r of rows) this.byKey.set(key(r.step, r.index), r);
  }
  get(step: string, index: number | null = null): StepState | undefined {
    return this.byKey.get(key(step, index));
  }
}

/** A single step has succeeded, or a fan-out's group row has (set once all its items did). */
function complete(rows: Rows, step: string): boolean {
  return rows.get(step)?.status === "succeeded";
}

/** Actions that the current rows allow, in declaration order. Apply them and call again until none are left. */
export function nextActions(defs: Iterable<Def>, states: Iterable<StepState>): PlanAction[] {
  const rows = new Rows(states);
  const out: PlanAction[] = [];
  for (const def of defs) {
    const own = rows.get(def.name);
    if (def.kind === "single") {
      if (!own && def.after.every((p) => complete(rows, p))) out.push({ type: "create", step: def.name });
      continue;
    }
    if (!own) {
      if (def.kind === "items") {
        if (def.after.every((p) => complete(rows, p))) out.push({ type: "expand", step: def.name });
        continue;
      }
      const of = rows.get(def.of!);
      // Per-item steps open once their `of` fan-out is expanded and every other parent is done.
      if (of?.itemCount != null && def.after.every((p) => p === def.of || complete(rows, p))) {
        out.push({ type: "open", step: def.name, count: of.itemCount });
      }
      continue;
    }
    if (own.status !== "running" || own.itemCount === null) continue;
    let allDone = true;
    for (let i = 0; i < own.itemCount; i++) {
      const item = rows.get(def.name, i);
      if (!item) {
        allDone = false;
        if (def.kind === "of" && rows.get(def.of!, i)?.status === "succeeded") out.push({ type: "create_item", step: def.name, index: i });
      } else if (item.status !== "succeeded") {
        allDone = false;
      }
    }
    if (allDone) out.push({ type: "complete_group", step: def.name });
  }
  return out;
}

/** The run is done when every declared step is complete. */
export function allComplete(defs: Iterable<Def>, states: Iterable<StepState>): boolean {
  const rows = new Rows(states);
  for (const def of defs) if (!complete(rows, def.name)) return false;
  return true;
}
