// Packages are closed: each exports "." (and "./testing" for test helpers), and nobody reaches past
// those entry points into another package's files.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PACKAGE_DIRS = ["packages", "services"].flatMap((group) => readdirSync(join(ROOT, group)).map((name) => join(group, name)));
const ALLOWED_ENTRY_POINTS = new Set([".", "./testing"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === "node_modules" || name.startsWith(".")) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(name) ? [path] : [];
  });
}

describe("package boundaries", () => {
  it.each(PACKAGE_DIRS)("%s exports only its entry point (and ./testing)", (dir) => {
    const pkg = JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as { exports?: Record<string, string> };
    const entryPoints = Object.keys(pkg.exports ?? {});
    expect(entryPoints).toContain(".");
    expect(entryPoints.filter((e) => !ALLOWED_ENTRY_POINTS.has(e))).toEqual([]);
  });

  it("no file imports another package's internals", () => {
    const deepImport = /["'](@scribe\/[a-z-]+\/(?!testing["'])[^"']+)["']/g;
    const offenders = ["packages", "services", "test", "bench"]
      .flatMap((dir) => sourceFiles(join(ROOT, dir)))
      .flatMap((file) => [...readFileSync(file, "utf8").matchAll(deepImport)].map((m) => `${file.slice(ROOT.length)}: ${m[1]}`));
    expect(offenders).toEqual([]);
  });
});
