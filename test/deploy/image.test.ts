// The image without Docker: the runtime tree is built in a clean folder by the script the Dockerfile
// runs (the web app built, then production dependencies only, no simulators), then the Dockerfile's
// own entrypoint applies the migrations and starts the gateway from that tree until its readiness
// probe answers and it serves the API and the web app.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, eventually, testPrefix, TEST_NATS_URL, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DOCKERFILE = readFileSync(join(ROOT, "deploy/Dockerfile"), "utf8");

/** The image's command line after the init process, read from the Dockerfile so the test cannot drift from it. */
function imageCommand(): string[] {
  const entrypoint = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(DOCKERFILE)?.[1];
  if (!entrypoint) throw new Error("deploy/Dockerfile has no exec-form ENTRYPOINT");
  const argv = JSON.parse(entrypoint) as string[];
  return argv.slice(argv.indexOf("--") + 1);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

let tree: string;
let db: TestDatabase;
let env: Record<string, string>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  tree = join(mkdtempSync(join(tmpdir(), "scribe-image-")), "app");
  // The local pnpm store already holds every package the lockfile names; the Docker build downloads them.
  execFileSync("bash", [join(ROOT, "deploy/build-image-tree.sh"), ROOT, tree], {
    env: { ...process.env, SCRIBE_PNPM_INSTALL_FLAGS: "--offline" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  db = await createTestDatabase("image");
  env = {
    PATH: process.env.PATH ?? "",
    NODE_ENV: "production",
    DATABASE_URL: db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: testPrefix("image"),
    HOST: "127.0.0.1",
    SECRET_KEY: randomBytes(32).toString("hex"),
    STORAGE_LOCAL_ROOT: join(tree, ".data/storage"),
    LOG_LEVEL: "error",
    AUTH_BACKEND: "password",
  };
}, 180_000);

afterAll(async () => {
  const exits = children.filter((c) => c.exitCode === null).map((c) => new Promise((resolve) => c.once("exit", resolve)));
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(exits);
  await db?.drop();
  if (tree) rmSync(join(tree, ".."), { recursive: true, force: true });
});

describe("the image's runtime tree", () => {
  it("is built by the same script the Dockerfile runs", () => {
    expect(DOCKERFILE).toMatch(/RUN .*deploy\/build-image-tree\.sh/);
  });

  it("holds production dependencies only, without the simulators or development tools", () => {
    expect(existsSync(join(tree, "packages/cli/node_modules/tsx"))).toBe(true);
    for (const devOnly of [
      "packages/simulators",
      "packages/cli/node_modules/@scribe/simulators",
      "node_modules/.pnpm/node_modules/vitest",
      "node_modules/.pnpm/node_modules/typescript",
      "node_modules/.pnpm/node_modules/vite",
    ]) {
      expect(existsSync(join(tree, devOnly)), devOnly).toBe(false);
    }
  });

  it("applies the migrations and starts a service until /readyz answers, with the image's command", async () => {
    const [node, ...script] = imageCommand();
    expect(node).toBe("node");
    execFileSync(process.execPath, [...script, "migrate"], { cwd: tree, env, stdio: ["ignore", "ignore", "pipe"] });

    const [port, opsPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [...script, "up", "gateway"], {
      cwd: tree,
      env: { ...env, PORT: String(port), OPS_PORT: String(opsPort) },
      stdio: ["ignore", "ignore", "inherit"],
    });
    children.push(child);
    const ready = await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`scribe up gateway exited with ${child.exitCode}`);
        const res = await fetch(`http://127.0.0.1:${opsPort}/readyz`).catch(() => null);
        return res?.ok ? res : null;
      },
      { timeoutMs: 60_000, message: "the gateway started from the image tree never became ready" },
    );
    expect(ready.status).toBe(200);
    const login = await fetch(`http://127.0.0.1:${port}/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(login.status).toBe(422);
    const webApp = await fetch(`http://127.0.0.1:${port}/`);
    expect(webApp.status).toBe(200);
    expect(await webApp.text()).toMatch(/<script type="module"[^>]* src="\/assets\//);
  }, 120_000);
});
