// What a `scribe` subcommand is: its name, usage lines, and how it runs (returns the exit code).
import type { Env } from "@scribe/kit";

export interface CliCommand {
  name: string;
  /** Usage lines as shown by `scribe help` (first line starts with the command). */
  usage: string;
  /** Resolves with the process's exit code; `"keep-running"` for commands that serve until a signal. */
  run(args: string[], env: Env): Promise<number | "keep-running">;
}
