// Password hashes in the reference's PBKDF2 format (behaviour §6.5, reference tests §9.8).
import { describe, expect, it } from "vitest";
import { DEFAULT_ITERATIONS, hashPassword, parsePasswordHash, verifyPassword } from "../src/auth/password-hash";

// Computed with Python's hashlib.pbkdf2_hmac('sha256', password, salt_text.encode(), 100000): the
// reference's own primitive, so hashes made by the reference's create_admin verify here.
const SALT = "0123456789abcdef0123456789abcdef";
const REFERENCE = {
  "correct horse battery staple": `pbkdf2:sha256:100000$${SALT}$69a26fc4b1624cd29ecc2b2444aa876251575c65deb4af9effbd9eadbd4195c6`,
  "": `pbkdf2:sha256:100000$${SALT}$eb3f2849d5637c3c6d38ee97f473025e25c2b24126681b3d306a3c914f690449`,
  "pässwörd 🔑": `pbkdf2:sha256:100000$${SALT}$eca4a01777c09cfa42b2ddbadf121db9e336db2294f4b9d8aeda7e0d4694148e`,
};

describe("password hashes", () => {
  it("verifies hashes made by the reference (the salt text's bytes are the PBKDF2 salt)", async () => {
    for (const [password, stored] of Object.entries(REFERENCE)) {
      expect(await verifyPassword(password, stored)).toBe(true);
      expect(await verifyPassword(`${password}x`, stored)).toBe(false);
    }
  });

  it("produces the reference's hash for the same salt and iterations", async () => {
    expect(await hashPassword("correct horse battery staple", { salt: SALT })).toBe(REFERENCE["correct horse battery staple"]);
  });

  it("writes pbkdf2:sha256:100000, a 32-character hex salt and a 64-character hex digest", async () => {
    const stored = await hashPassword("secret");
    const [method, salt, hash] = stored.split("$");
    expect(method).toBe(`pbkdf2:sha256:${DEFAULT_ITERATIONS}`);
    expect(salt).toMatch(/^[0-9a-f]{32}$/);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("salts every hash differently, and both verify", async () => {
    const a = await hashPassword("same", { iterations: 1000 });
    const b = await hashPassword("same", { iterations: 1000 });
    expect(a).not.toBe(b);
    expect(await verifyPassword("same", a)).toBe(true);
    expect(await verifyPassword("same", b)).toBe(true);
  });

  it("reads the iteration count from the stored hash", async () => {
    // python: hashlib.pbkdf2_hmac('sha256', b'admin-pass', b'feedfacecafebeef', 1000).hex()
    const stored = "pbkdf2:sha256:1000$feedfacecafebeef$4f6709c13dd5711fa65f1d151b403186d7389b61fe10e0e66d64a7d025155991";
    expect(await verifyPassword("admin-pass", stored)).toBe(true);
  });

  it("answers false, never throws, for malformed hashes", async () => {
    for (const bad of [
      "garbage",
      "",
      "pbkdf2:sha256:100000$short",
      "pbkdf2:md5:1$aa$bb",
      "pbkdf2:sha256:0$aa$" + "0".repeat(64),
      "pbkdf2:sha256:99999999999$aa$" + "0".repeat(64),
      `pbkdf2:sha256:1000$${SALT}$${"z".repeat(64)}`,
      `pbkdf2:sha256:1000$$${"0".repeat(64)}`,
    ]) {
      expect(parsePasswordHash(bad)).toBeNull();
      expect(await verifyPassword("x", bad)).toBe(false);
    }
  });
});
