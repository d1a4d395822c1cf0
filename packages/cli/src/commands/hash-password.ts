// `scribe hash-password`: prints an ADMIN_PASSWORD_HASH. The password never comes from the command
// line (it would land in the shell history and the process list): on a terminal it is asked for
// twice without echo, otherwise read from stdin. It is never printed.
import { hashPassword } from "@scribe/gateway";
import { act, examples, type CliCommand } from "../command";

export async function hashPasswordCommand(stdin: NodeJS.ReadableStream): Promise<string> {
  let raw = "";
  for await (const chunk of stdin) raw += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
  // One trailing newline is what `echo` or a terminal adds, not part of the password.
  const password = raw.replace(/\r?\n$/, "");
  if (password === "") throw new Error("no password on stdin (e.g. `printf %s 'secret' | pnpm -s scribe hash-password`)");
  return hashPassword(password);
}

/** Read one line from a terminal without echoing it (raw mode; Ctrl-C aborts). */
export function readHidden(prompt: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr) {
  return new Promise<string>((resolve, reject) => {
    output.write(prompt);
    let typed = "";
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off("data", onData);
      output.write("\n");
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (data: Buffer) => {
      for (const ch of data.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003" || ch === "\u0004") return done(new Error("cancelled"));
        if (ch === "\u007f" || ch === "\b") typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on("data", onData);
  });
}

async function promptedPassword(): Promise<string> {
  const password = await readHidden("Password: ");
  if (password === "") throw new Error("empty password; nothing hashed");
  if ((await readHidden("Repeat it: ")) !== password) throw new Error("the two passwords differ; nothing hashed");
  return hashPassword(password);
}

export const hashPasswordCli: CliCommand = {
  name: "hash-password",
  register(program, ctx) {
    const cmd = program
      .command("hash-password")
      .summary("print an ADMIN_PASSWORD_HASH for a password (asked for, or read from stdin)")
      .description(
        "Print an ADMIN_PASSWORD_HASH (pbkdf2) for a password. On a terminal the password is asked for twice without echo; piped, it is read from stdin (one trailing newline dropped). The password itself is never printed.",
      )
      .action(
        act(ctx, async () => {
          ctx.io.out(process.stdin.isTTY ? await promptedPassword() : await hashPasswordCommand(process.stdin));
          return 0;
        }),
      );
    examples(
      cmd,
      "scribe hash-password                      # asks twice, no echo",
      "printf %s 'choose-one' | scribe hash-password",
      'export ADMIN_PASSWORD_HASH="$(scribe hash-password)"',
    );
  },
};
