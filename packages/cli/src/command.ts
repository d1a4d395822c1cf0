// What a `scribe` subcommand is: a module that adds its command (usage, options, an example) to the
// commander program, and whose action resolves with the process's exit code.
import { InvalidArgumentError, Option, type Command } from "commander";
import type { Env } from "@scribe/kit";

/** A number, or `"keep-running"` for commands that serve until a signal. */
export type ExitCode = number | "keep-running";

/** Where a command's output goes (the terminal in `scribe`, an array in tests). */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Is stdout a terminal (progress displays redraw in place; otherwise plain lines)? */
  isTty: boolean;
}

/** What every command's action gets, and where it leaves its exit code for `runCli`. */
export interface CliContext {
  env: Env;
  io: CliIo;
  exitCode: ExitCode;
}

export interface CliCommand {
  name: string;
  register(program: Command, ctx: CliContext): void;
}

/** Help's closing lines: commands a reader can paste. */
export function examples(cmd: Command, ...lines: string[]): Command {
  return cmd.addHelpText("after", `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`);
}

/** A command action that resolves with an exit code (commander's own actions resolve with nothing). */
export function act<A extends unknown[]>(ctx: CliContext, fn: (...args: A) => Promise<ExitCode>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    ctx.exitCode = await fn(...args);
  };
}

export const jsonOption = () => new Option("--json", "print JSON instead of text (for scripts)");

/** Option parser for counts and sequence numbers: a worded usage error (exit 2) for anything else. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError("expected a positive integer");
  return n;
}

/** Option parser for times: ISO-8601 in, a Date out. */
export function isoTime(value: string): Date {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new InvalidArgumentError("expected an ISO-8601 time, e.g. 2026-01-31T09:00:00Z");
  return new Date(t);
}

/** Option parser for one of a fixed set of words. */
export function oneOf(choices: readonly string[]): (value: string) => string {
  return (value) => {
    if (!choices.includes(value)) throw new InvalidArgumentError(`expected one of ${choices.join(", ")}`);
    return value;
  };
}
