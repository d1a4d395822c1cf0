// Password mode: the configured user (ADMIN_EMAIL with ADMIN_PASSWORD_HASH, or ADMIN_PASSWORD hashed
// here) is created or updated at start-up, as the reference's container start does.
import type { Logger, Sql } from "@scribe/kit";
import type { GatewayConfig } from "../config";
import { setUserPassword, userByEmail } from "../store";
import { hashPassword, verifyPassword } from "./password-hash";

export async function provisionAdmin(sql: Sql, config: GatewayConfig, log: Logger, now: Date): Promise<void> {
  const email = config.ADMIN_EMAIL;
  if (config.AUTH_BACKEND !== "password") return;
  if (!email) {
    log.warn("AUTH_BACKEND=password without ADMIN_EMAIL: nobody can log in until a user is provisioned");
    return;
  }
  const current = await userByEmail(sql, email);
  const plain = config.ADMIN_PASSWORD;
  const stored = current?.password_hash ?? null;
  // Re-hashing an unchanged plain password would give a new salt and a write on every start.
  const unchanged = stored !== null && (plain !== undefined ? await verifyPassword(plain, stored) : stored === config.ADMIN_PASSWORD_HASH);
  if (current && unchanged) {
    log.info({ userId: current.id, email }, "login user unchanged");
    return;
  }
  const hash = plain !== undefined ? await hashPassword(plain) : config.ADMIN_PASSWORD_HASH!;
  const user = await setUserPassword(sql, email, hash, now);
  log.info({ userId: user.id, email }, current ? "login user's password updated" : "login user created");
}
