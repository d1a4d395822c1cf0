// `pnpm bench [filter]`: runs every bench/*.bench.ts (each exports a default async function) in turn.
import { readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join } from "node:path";

const dir = fileURLToPath(new URL(".", import.meta.url));
const filter = process.argv[2];
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => !filter || f.includes(filter))
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${JSON.stringify(filter)}`);
  process.exit(1);
}
for (const f of files) {
  console.log(`\n# ${f.replace(/\.bench\.ts$/, "")}`);
  const mod = (await import(pathToFileURL(join(dir, f)).href)) as { default: () => Promise<void> };
  await mod.default();
}
process.exit(0);
