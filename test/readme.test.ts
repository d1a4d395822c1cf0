// The README's configuration table is generated; this keeps it true, and checks that the CLI table
// names every command, that every duration states its unit and that no link leaves the repository.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildProgram, configRows, configTable } from "@scribe/cli";
import { describe, expect, it } from "vitest";

const README = fileURLToPath(new URL("../README.md", import.meta.url));
const BLOCK = /<!-- config:start -->\n([\s\S]*?)<!-- config:end -->/;

describe("README", () => {
  it("carries the configuration table generated from the services' schemas (UPDATE_README=1 rewrites it)", () => {
    const readme = readFileSync(README, "utf8");
    const expected = `${configTable()}\n`;
    if (process.env.UPDATE_README) {
      writeFileSync(README, readme.replace(BLOCK, `<!-- config:start -->\n${expected}<!-- config:end -->`));
      return;
    }
    expect(BLOCK.exec(readme)?.[1]).toBe(expected);
  });

  it("states the unit of every duration setting, in its name or its description", () => {
    // Names that are durations; a unit suffix (_MS, _SECONDS, …) or a unit in the description says how long.
    const duration = /TIMEOUT|INTERVAL|TTL|TICK|_AGE|WAIT|BACKOFF|LEASE|DELAY|WINDOW_SECONDS|RETENTION|PERIOD|DURATION|_SECONDS|_MS$/;
    const unitInName = /_(MS|SECONDS|MINUTES|HOURS|DAYS)$/;
    const unitInText = /\b(seconds?|ms|milliseconds?|minutes?|hours?|days?)\b/i;
    const missing = configRows()
      .filter((r) => duration.test(r.name) && !unitInName.test(r.name) && !unitInText.test(r.description))
      .map((r) => r.name);
    expect(missing).toEqual([]);
  });

  it("lists every command of the CLI in its command table", () => {
    const readme = readFileSync(README, "utf8");
    const section = readme.slice(readme.indexOf("## The `scribe` CLI"), readme.indexOf("## Sign-in"));
    const ctx = { env: {}, io: { out: () => {}, err: () => {}, isTty: false }, exitCode: 0 };
    // Leaf commands (`dlq list`, not `dlq`), each the start of a row.
    const leaves = (cmd: ReturnType<typeof buildProgram>, path: string[]): string[] =>
      cmd.commands
        .filter((c) => c.name() !== "help")
        .flatMap((c) => (c.commands.length ? leaves(c, [...path, c.name()]) : [[...path, c.name()].join(" ")]));
    const missing = leaves(buildProgram(ctx), []).filter((name) => !section.includes(`| \`${name}`));
    expect(missing).toEqual([]);
  });

  it("links only to files in the repository", () => {
    const readme = readFileSync(README, "utf8");
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)|<(https?:\/\/[^>]+)>/g)].map((m) => (m[1] ?? m[2])!);
    expect(targets.length).toBeGreaterThan(0);
    const outside = targets.filter((t) => /^[a-z][a-z0-9+.-]*:/i.test(t) || t.startsWith("//"));
    expect(outside).toEqual([]);
    const missingFiles = targets
      .filter((t) => !t.startsWith("#"))
      .map((t) => t.split("#")[0]!)
      .filter((t) => !existsSync(join(dirname(README), t)));
    expect(missingFiles).toEqual([]);
  });
});
