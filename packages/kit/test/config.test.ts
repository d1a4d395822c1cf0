import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BaseConfig, ConfigError, envBool, loadConfig } from "../src/config";

describe("configuration", () => {
  it("fills working local defaults when nothing is set", () => {
    const c = loadConfig(BaseConfig, {});
    expect(c.DATABASE_URL).toBe("postgres://postgres@127.0.0.1:5432/scribe");
    expect(c.NATS_URL).toBe("nats://127.0.0.1:4222");
    expect(c.MIGRATE_ON_START).toBe(true);
  });

  it("accepts the reference's SQLAlchemy-style DATABASE_URL", () => {
    const c = loadConfig(BaseConfig, { DATABASE_URL: "postgresql+asyncpg://reflector:reflector@db:5432/reflector" });
    expect(c.DATABASE_URL).toBe("postgresql://reflector:reflector@db:5432/reflector");
  });

  it("reports every bad variable at once, naming each, without printing secrets", () => {
    const schema = BaseConfig.extend({ SECRET_KEY: z.string().min(32), PUBLIC_MODE: envBool(false) });
    let error: ConfigError | undefined;
    try {
      loadConfig(schema, { DATABASE_URL: "mysql://x", LOG_LEVEL: "loud", SECRET_KEY: "short", PUBLIC_MODE: "maybe" });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = error!.message;
    for (const name of ["DATABASE_URL", "LOG_LEVEL", "SECRET_KEY", "PUBLIC_MODE"]) expect(text).toContain(name);
    expect(text).toContain("(value hidden)");
    expect(text).not.toContain("short");
    expect(error!.problems).toHaveLength(4);
  });

  it("treats an empty variable as unset", () => {
    expect(loadConfig(BaseConfig, { NATS_URL: "" }).NATS_URL).toBe("nats://127.0.0.1:4222");
  });
});
