// `scribe` — the operator's CLI (commands in commands/, the program in cli.ts).
import { runCli } from "./cli";
import { explainError } from "./errors";

const argv = process.argv.slice(2);
try {
  const code = await runCli(argv, process.env);
  if (code !== "keep-running") process.exit(code);
} catch (e) {
  const command = argv.find((a) => !a.startsWith("-"));
  console.error(`scribe${command ? ` ${command}` : ""}: ${explainError(e, process.env)}`);
  if (process.env.SCRIBE_DEBUG === "1") console.error(e);
  process.exit(1);
}
