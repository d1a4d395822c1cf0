// The `scribe` program: commander parses the command line, every command answers --help (usage,
// options, an example) and does nothing else then; a usage error is worded with a hint and exits 2.
// Commands are added by the caller (cli.ts adds all; a command's own test entry may add just itself).
import { Command, CommanderError } from "commander";
import type { Env } from "@scribe/kit";
import type { CliCommand, CliContext, CliIo, ExitCode } from "./command";

/** Exit code of a command line the parser refused (unknown command or option, missing argument). */
export const USAGE_ERROR = 2;

export function terminalIo(): CliIo {
  return {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    isTty: Boolean(process.stdout.isTTY),
  };
}

export function buildProgram(ctx: CliContext, commands: readonly CliCommand[]): Command {
  const trimmed = (write: (line: string) => void) => (text: string) => write(text.replace(/\n$/, ""));
  const program = new Command("scribe")
    .description("Scribe's command line: run the services, transcribe a file, and inspect or repair a running installation.")
    .usage("<command> [options]")
    .helpOption("-h, --help", "show help for the command")
    .helpCommand("help [command]", "show help for a command")
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ writeOut: trimmed(ctx.io.out), writeErr: trimmed(ctx.io.err) })
    .showHelpAfterError("(add --help for usage)")
    .exitOverride();
  program.addHelpText(
    "after",
    "\nEvery command answers --help. Connection settings come from the environment (DATABASE_URL, NATS_URL, NATS_PREFIX; see `scribe config`).\nSCRIBE_DEBUG=1 prints stack traces of failures.\n\nExample:\n  $ scribe transcribe meeting.mp3 --api-key $SCRIBE_API_KEY\n",
  );
  for (const command of commands) command.register(program, ctx);
  return program;
}

/** Run one command line; resolves with the exit code, throws the command's own failure (see errors.ts). */
export async function runProgram(argv: string[], env: Env, io: CliIo, commands: readonly CliCommand[]): Promise<ExitCode> {
  const ctx: CliContext = { env, io, exitCode: 0 };
  const program = buildProgram(ctx, commands);
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: "user" });
    return ctx.exitCode;
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    // Help asked for (also `scribe help <command>`) is a success; a refused command line is a usage error.
    if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || (e.code === "commander.help" && e.exitCode === 0))
      return 0;
    return USAGE_ERROR;
  }
}
