// deploy/compose.yaml: every service of the CLI runs after the migrations, NATS is a supported
// version whose health check its image can run, and `docker compose config` accepts the file where
// the compose plugin is installed.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { SERVICES } from "@scribe/cli";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const COMPOSE_FILE = `${ROOT}deploy/compose.yaml`;

interface ComposeService {
  image?: string;
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
}
const compose = parse(readFileSync(COMPOSE_FILE, "utf8"), { merge: true }) as { services: Record<string, ComposeService> };

/** Why `docker compose config` cannot run here, or null when it can. */
function composeUnavailable(): string | null {
  const probe = spawnSync("docker", ["compose", "version"], { encoding: "utf8" });
  if (probe.error) return `docker is not installed (${probe.error.message})`;
  if (probe.status !== 0) return `the docker compose plugin is not installed (${(probe.stderr || probe.stdout).trim()})`;
  return null;
}

describe("deploy/compose.yaml", () => {
  it("starts every service of the CLI with its `up` command, after the migrations and once NATS is healthy", () => {
    for (const { name } of SERVICES) {
      const service = compose.services[name];
      expect(service, name).toBeDefined();
      expect(service!.command).toEqual(["up", name]);
      expect(service!.depends_on?.migrate?.condition, name).toBe("service_completed_successfully");
      expect(service!.depends_on?.nats?.condition, name).toBe("service_healthy");
    }
    expect(compose.services.migrate!.command).toEqual(["migrate"]);
    expect(compose.services.migrate!.depends_on?.postgres?.condition).toBe("service_healthy");
  });

  it("runs a supported NATS (2.10 or later) in an image that has the program its health check calls", () => {
    const nats = compose.services.nats!;
    const [, major, minor, variant] = /^nats:(\d+)\.(\d+)(?:\.\d+)?(-alpine)?$/.exec(nats.image ?? "") ?? [];
    expect(Number(major) * 100 + Number(minor), nats.image).toBeGreaterThanOrEqual(210);
    // The scratch-based image holds nats-server alone; busybox's wget is in the alpine variant.
    expect(variant, "a shell-less nats image cannot run a health check program").toBe("-alpine");
    expect(nats.healthcheck?.test?.slice(0, 2)).toEqual(["CMD", "wget"]);
    expect(nats.healthcheck?.test?.at(-1)).toMatch(/^http:\/\/127\.0\.0\.1:8222\/healthz/);
    expect(nats.command).toEqual(expect.arrayContaining(["-js", "-m", "8222"]));
  });

  it("has no SECRET_KEY of its own: the operator must set one", () => {
    const keys = [...readFileSync(COMPOSE_FILE, "utf8").matchAll(/^\s*SECRET_KEY:\s*(.*)$/gm)].map((m) => m[1]!);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).toMatch(/^\$\{SECRET_KEY:\?/);
  });

  it("is accepted by `docker compose config`", (ctx) => {
    const reason = composeUnavailable();
    if (reason) {
      console.log(`docker compose config not run: ${reason}`);
      ctx.skip(reason);
      return;
    }
    execFileSync("docker", ["compose", "-f", COMPOSE_FILE, "config", "--quiet"], {
      env: { ...process.env, SECRET_KEY: "compose-config-check-only" },
      stdio: ["ignore", "inherit", "inherit"],
    });
  });
});
