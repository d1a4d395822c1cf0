import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "services/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Every test file uses its own database and bus prefix, so files run in parallel safely.
    fileParallelism: true,
    // Most files wait on services, NATS and child processes rather than compute: two files at a
    // time on a 2-core CI machine (vitest's default there is one) without starving the
    // pocketsphinx- and browser-heavy files. SCRIBE_TEST_WORKERS overrides it.
    maxWorkers: Number(process.env.SCRIBE_TEST_WORKERS ?? 2),
    reporters: ["default"],
  },
});
