// `pnpm generate:client`: rewrites packages/client/openapi.json and src/schema.ts from the gateway.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PACKAGE_DIR, generateClientFiles } from "./codegen";

for (const file of await generateClientFiles()) {
  await writeFile(join(PACKAGE_DIR, file.path), file.content);
  console.log(`wrote packages/client/${file.path}`);
}
