#!/usr/bin/env node
// The `scribe` executable. The workspace ships TypeScript sources; tsx (a production dependency of
// this package, not a dev tool here) compiles them on load, so the image needs no separate build
// output that could drift from the sources the tests run.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
