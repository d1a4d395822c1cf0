// `scribe hash-password`: prints an ADMIN_PASSWORD_HASH for the password read from stdin (not from
// the command line, where it would land in the shell history and the process list).
import type { CliCommand } from "../command";
import { hashPassword } from "@scribe/gateway";

export async function hashPasswordCommand(stdin: NodeJS.ReadableStream): Promise<string> {
  let raw = "";
  for await (const chunk of stdin) raw += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
  // One trailing newline is what `echo` or a terminal adds, not part of the password.
  const password = raw.replace(/\r?\n$/, "");
  if (password === "") throw new Error("no password on stdin (e.g. `printf %s 'secret' | pnpm -s scribe hash-password`)");
  return hashPassword(password);
}

export const hashPasswordCli: CliCommand = {
  name: "hash-password",
  usage: "hash-password        ADMIN_PASSWORD_HASH for the password given on stdin",
  async run() {
    console.log(await hashPasswordCommand(process.stdin));
    return 0;
  },
};
