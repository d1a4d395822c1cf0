// API keys: 48 random bytes, URL-safe base64 (64 characters, no prefix, as the reference), stored
// only as hex(HMAC-SHA256(SECRET_KEY, key)) so a database leak reveals no usable key.
import { createHmac, randomBytes } from "node:crypto";

export function generateApiKey(): string {
  return randomBytes(48).toString("base64url");
}

export function hashApiKey(secret: string, key: string): string {
  return createHmac("sha256", secret).update(key, "utf8").digest("hex");
}

/** Longer than any key we issue: not worth a database lookup (the caller simply stays anonymous). */
export const MAX_API_KEY_LENGTH = 256;
