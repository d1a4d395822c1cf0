// Auth settings: bad combinations stop start-up with a message naming the variables.
import { loadConfig } from "@scribe/kit";
import { describe, expect, it } from "vitest";
import { GatewayConfig, authConfigProblems } from "../src/config";

const load = (env: Record<string, string>) => loadConfig(GatewayConfig, env);

describe("auth configuration", () => {
  it("defaults to no authentication, RS256 and the reference's limits", () => {
    const c = load({});
    expect(c).toMatchObject({
      AUTH_BACKEND: "none",
      AUTH_JWT_ALGORITHM: "RS256",
      LOGIN_RATE_LIMIT_ATTEMPTS: 10,
      LOGIN_RATE_LIMIT_WINDOW_SECONDS: 300,
      LOGIN_TOKEN_TTL_SECONDS: 86_400,
      MEDIA_TOKEN_TTL_SECONDS: 900,
      TRUSTED_PROXIES: "",
    });
    expect(authConfigProblems(c)).toEqual([]);
  });

  it("refuses symmetric algorithms and none for identity-provider tokens", () => {
    for (const alg of ["HS256", "none", "RS256,HS512", ""]) {
      expect(() => load({ AUTH_JWT_ALGORITHM: alg === "" ? "," : alg })).toThrow(/AUTH_JWT_ALGORITHM/);
    }
    expect(load({ AUTH_JWT_ALGORITHM: "RS256, ES256" }).AUTH_JWT_ALGORITHM).toBe("RS256, ES256");
  });

  it("needs exactly one key source in jwt mode", () => {
    expect(authConfigProblems(load({ AUTH_BACKEND: "jwt" }))).toEqual([
      expect.stringContaining("AUTH_JWT_JWKS_URL or AUTH_JWT_PUBLIC_KEY"),
    ]);
    expect(
      authConfigProblems(load({ AUTH_BACKEND: "jwt", AUTH_JWT_JWKS_URL: "https://idp.example.com/jwks", AUTH_JWT_PUBLIC_KEY: "/k.pem" })),
    ).toHaveLength(1);
    expect(authConfigProblems(load({ AUTH_BACKEND: "jwt", AUTH_JWT_JWKS_URL: "https://idp.example.com/jwks" }))).toEqual([]);
    expect(() => load({ AUTH_JWT_JWKS_URL: "ftp://idp.example.com/jwks" })).toThrow(/AUTH_JWT_JWKS_URL/);
  });

  it("checks the password-mode user's settings belong together", () => {
    const hash = `pbkdf2:sha256:1000$salt$${"0".repeat(64)}`;
    expect(authConfigProblems(load({ AUTH_BACKEND: "password", ADMIN_EMAIL: "a@b.c", ADMIN_PASSWORD_HASH: hash }))).toEqual([]);
    expect(authConfigProblems(load({ AUTH_BACKEND: "password", ADMIN_EMAIL: "a@b.c", ADMIN_PASSWORD: "pw" }))).toEqual([]);
    expect(authConfigProblems(load({ AUTH_BACKEND: "password", ADMIN_EMAIL: "a@b.c" }))).toHaveLength(1);
    expect(authConfigProblems(load({ AUTH_BACKEND: "password", ADMIN_PASSWORD: "pw" }))).toHaveLength(1);
    expect(
      authConfigProblems(load({ AUTH_BACKEND: "password", ADMIN_EMAIL: "a@b.c", ADMIN_PASSWORD: "pw", ADMIN_PASSWORD_HASH: hash })),
    ).toHaveLength(1);
  });

  it("refuses a malformed password hash without echoing it", () => {
    expect(() => load({ ADMIN_PASSWORD_HASH: "plaintext-oops" })).toThrow(/ADMIN_PASSWORD_HASH: expected pbkdf2.*\(value hidden\)/);
  });

  it("accepts trusted proxies as IPs and CIDR blocks only", () => {
    expect(load({ TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1, ::1, fd00::/8" }).TRUSTED_PROXIES).toContain("10.0.0.0/8");
    for (const bad of ["10.0.0.0/33", "proxy.local", "1.2.3.4/x", "::1/129"]) {
      expect(() => load({ TRUSTED_PROXIES: bad })).toThrow(/TRUSTED_PROXIES/);
    }
  });
});
