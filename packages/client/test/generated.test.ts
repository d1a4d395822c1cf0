// The committed openapi.json and schema.ts must be what the gateway's routes generate today: a route or
// schema change without `pnpm generate:client` fails here, not in the web app.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_DIR, generateClientFiles } from "../scripts/codegen";

/** The first line where the two texts differ, for a message a reader can act on. */
function firstDifference(committed: string, fresh: string): string {
  const a = committed.split("\n");
  const b = fresh.split("\n");
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `line ${i + 1}: committed ${JSON.stringify(a[i] ?? "<end>")}, generated ${JSON.stringify(b[i] ?? "<end>")}`;
  }
  return "none";
}

describe("packages/client generated files", async () => {
  const files = await generateClientFiles();
  it.each(files.map((f) => [f.path, f] as const))("%s is up to date with the gateway's routes", async (path, file) => {
    const committed = await readFile(join(PACKAGE_DIR, path), "utf8").catch(() => "");
    const stale = committed !== file.content;
    expect(
      stale
        ? `packages/client/${path} is stale: run \`pnpm generate:client\` and commit the result (first difference at ${firstDifference(committed, file.content)})`
        : "up to date",
    ).toBe("up to date");
  });
});
