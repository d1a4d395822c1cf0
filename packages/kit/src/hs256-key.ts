// The HMAC key of HS256 tokens signed with a secret (SECRET_KEY), imported into WebCrypto once per
// secret: given the raw secret, jose imports it again on every sign and verify, about half the
// cost of checking a token (transcript-reads bench, CPU profile of the gateway).
import { webcrypto } from "node:crypto";

const keys = new Map<string, Promise<webcrypto.CryptoKey>>();
/** Secrets a process holds at once (its SECRET_KEY; tests make a few more). */
const MAX_KEYS = 16;

export function hs256Key(secret: string): Promise<webcrypto.CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = webcrypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    keys.set(secret, key);
  }
  return key;
}
