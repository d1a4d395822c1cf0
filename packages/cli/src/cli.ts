// The whole `scribe` program: every command of commands/index.ts on the shared parser (program.ts).
import type { Command } from "commander";
import type { Env } from "@scribe/kit";
import type { CliContext, CliIo, ExitCode } from "./command";
import { COMMANDS } from "./commands/index";
import { buildProgram as buildWith, runProgram, terminalIo } from "./program";

export { USAGE_ERROR, terminalIo } from "./program";

export function buildProgram(ctx: CliContext): Command {
  return buildWith(ctx, COMMANDS);
}

/** Run one command line; resolves with the exit code, throws the command's own failure (see errors.ts). */
export function runCli(argv: string[], env: Env, io: CliIo = terminalIo()): Promise<ExitCode> {
  return runProgram(argv, env, io, COMMANDS);
}
