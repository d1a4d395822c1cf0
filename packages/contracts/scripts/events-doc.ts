// `pnpm generate:events-doc`: rewrites docs/EVENTS.md from the event registry.
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { renderEventCatalog } from "@scribe/contracts";

const target = fileURLToPath(new URL("../../../docs/EVENTS.md", import.meta.url));
await writeFile(target, renderEventCatalog());
console.log("wrote docs/EVENTS.md");
