// `scribe` — the operator's CLI. Each subcommand lives in commands/ and is listed in commands/index.ts.
import { COMMANDS } from "./commands/index";

const usage = `usage: scribe <command>\n\n${COMMANDS.map((c) => `  ${c.usage}`).join("\n")}\n`;

const [name, ...args] = process.argv.slice(2);
const command = COMMANDS.find((c) => c.name === name);
if (!command) {
  process.stdout.write(usage);
  process.exit(name === undefined || name === "help" || name === "--help" ? 0 : 64);
}
try {
  const code = await command.run(args, process.env);
  if (code !== "keep-running") process.exit(code);
} catch (e) {
  console.error(`scribe ${name}: ${(e as Error).message}`);
  process.exit(1);
}
