// Secrets kept at rest in a service's database (webhook secrets, credentials): sealed with
// AES-256-GCM under a key derived from SECRET_KEY with HKDF-SHA256, one key per purpose, so a
// database dump alone reveals none of them. Values written before sealing existed read as they are
// until the service seals them (`isSealed` tells which).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const PREFIX = "sealed:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  seal(plain: string): string;
  /** The plain value of a sealed one (a value that is not sealed is returned as it is). */
  open(stored: string): string;
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/** `purpose` names what the key protects (e.g. "rooms.webhook_secret"): different purposes, different keys. */
export function secretBox(secretKey: string, purpose: string): SecretBox {
  const key = Buffer.from(hkdfSync("sha256", secretKey, "scribe.secret-box", purpose, 32));
  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
    },
    open(stored) {
      if (!isSealed(stored)) return stored;
      const raw = Buffer.from(stored.slice(PREFIX.length), "base64url");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    },
  };
}
