// Password-mode user provisioning at start-up (reference provision_admin / create_admin, §9.9),
// against a real database with the gateway's migrations.
import { connectDb, createLogger, loadConfig, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionAdmin } from "../src/auth/admin";
import { verifyPassword } from "../src/auth/password-hash";
import { GatewayConfig } from "../src/config";
import { upsertProviderUser } from "../src/store";

const log = createLogger("test", process.env.TEST_LOG_LEVEL ?? "silent");
let db: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  db = await createTestDatabase("gwadmin");
  sql = connectDb(db.url, { schema: "gateway", max: 2 });
  await migrate(sql, { schema: "gateway", migrations: serviceMigrations("gateway") });
});
afterAll(async () => {
  await sql.end();
  await db.drop();
});

const config = (env: Record<string, string>) => loadConfig(GatewayConfig, { AUTH_BACKEND: "password", ...env });
const usersWith = (email: string) =>
  sql<{ id: string; provider_uid: string; password_hash: string | null; updated_at: Date }[]>`
    select id, provider_uid, password_hash, updated_at from users where email = ${email}`;

describe("provisioning the password-mode user", () => {
  it("creates local:<email> with a hash of the plain password that verifies", async () => {
    await provisionAdmin(sql, config({ ADMIN_EMAIL: "new@example.com", ADMIN_PASSWORD: "first" }), log, new Date());
    const rows = await usersWith("new@example.com");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.provider_uid).toBe("local:new@example.com");
    expect(await verifyPassword("first", rows[0]!.password_hash!)).toBe(true);
  });

  it("is idempotent: the same password again leaves one row, unchanged", async () => {
    const [before] = await usersWith("new@example.com");
    await provisionAdmin(sql, config({ ADMIN_EMAIL: "new@example.com", ADMIN_PASSWORD: "first" }), log, new Date());
    expect(await usersWith("new@example.com")).toEqual([before]);
  });

  it("updates the same user when the password changes: the new one verifies, the old one not", async () => {
    const [before] = await usersWith("new@example.com");
    await provisionAdmin(sql, config({ ADMIN_EMAIL: "new@example.com", ADMIN_PASSWORD: "second" }), log, new Date());
    const [after] = await usersWith("new@example.com");
    expect(after!.id).toBe(before!.id);
    expect(await verifyPassword("second", after!.password_hash!)).toBe(true);
    expect(await verifyPassword("first", after!.password_hash!)).toBe(false);
  });

  it("stores a given ADMIN_PASSWORD_HASH as it is", async () => {
    const hash = "pbkdf2:sha256:1000$feedfacecafebeef$4f6709c13dd5711fa65f1d151b403186d7389b61fe10e0e66d64a7d025155991";
    await provisionAdmin(sql, config({ ADMIN_EMAIL: "new@example.com", ADMIN_PASSWORD_HASH: hash }), log, new Date());
    expect((await usersWith("new@example.com"))[0]!.password_hash).toBe(hash);
  });

  it("gives the password to an existing identity-provider user with that e-mail (reference: by e-mail)", async () => {
    const idpUser = await upsertProviderUser(sql, { uid: "idp-42", email: "both@example.com", emailVerified: true }, new Date());
    await provisionAdmin(sql, config({ ADMIN_EMAIL: "both@example.com", ADMIN_PASSWORD: "pw" }), log, new Date());
    const rows = await usersWith("both@example.com");
    expect(rows.map((r) => r.id)).toEqual([idpUser.id]);
    expect(await verifyPassword("pw", rows[0]!.password_hash!)).toBe(true);
  });

  it("does nothing outside password mode", async () => {
    await provisionAdmin(
      sql,
      loadConfig(GatewayConfig, { AUTH_BACKEND: "jwt", ADMIN_EMAIL: "jwt@example.com", ADMIN_PASSWORD: "pw" }),
      log,
      new Date(),
    );
    expect(await usersWith("jwt@example.com")).toEqual([]);
  });
});
