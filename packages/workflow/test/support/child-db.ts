// The pool a step handler uses for its own (at-least-once) writes; set by whoever runs the worker.
import type { Sql } from "@scribe/kit";

let pool: Sql | null = null;
export function setSql(s: Sql): void {
  pool = s;
}
export function sql(): Sql {
  if (!pool) throw new Error("child-db: no pool set");
  return pool;
}
