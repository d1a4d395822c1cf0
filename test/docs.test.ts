// The docs in the repo stay true: the event catalog matches the contracts, and every relative link in
// README.md and docs/*.md points at a file inside the repository (so it works in a fresh clone).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EVENT_DEFS, renderEventCatalog } from "@scribe/contracts";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const EVENTS_DOC = join(ROOT, "docs/EVENTS.md");
const DOCS = [
  "README.md",
  "SECURITY.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
].filter((f) => existsSync(join(ROOT, f)));

/** Relative link targets of a Markdown text, outside code blocks and code spans. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"));
}

describe("docs", () => {
  it("docs/EVENTS.md is the catalog generated from the contracts (UPDATE_DOCS=1 rewrites it)", () => {
    const expected = renderEventCatalog();
    if (process.env.UPDATE_DOCS === "1") writeFileSync(EVENTS_DOC, expected);
    expect(readFileSync(EVENTS_DOC, "utf8"), "stale: run `pnpm generate:events-doc`").toBe(expected);
    for (const def of EVENT_DEFS) expect(expected).toContain(`### ${def.type}\n`);
  });

  it("finds relative links, and ignores URLs, anchors and code", () => {
    expect(relativeLinks("[a](docs/A.md) [b](https://x.y/z) [c](#top) `[d](nope.md)` [e](../up.md#part)")).toEqual([
      "docs/A.md",
      "../up.md#part",
    ]);
  });

  it.each(DOCS)("every relative link in %s resolves inside the repository", (doc) => {
    const broken = relativeLinks(readFileSync(join(ROOT, doc), "utf8")).filter((target) => {
      const path = resolve(dirname(join(ROOT, doc)), decodeURIComponent(target.split("#")[0]!));
      return relative(ROOT, path).startsWith("..") || !existsSync(path);
    });
    expect(broken).toEqual([]);
  });
});
