// The README's configuration table is generated; this keeps it true.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { configTable } from "@scribe/cli";
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
});
