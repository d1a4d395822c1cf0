// Password hashes in the reference's format, so existing ADMIN_PASSWORD_HASH values keep working:
// `pbkdf2:sha256:<iterations>$<salt>$<hex digest>`, where the salt *text* (its UTF-8 bytes) is the
// PBKDF2 salt (behaviour §6.5).
import { pbkdf2, randomBytes, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const pbkdf2Async = promisify(pbkdf2);

export const DEFAULT_ITERATIONS = 100_000;
/** Digest name → key length, as Python's hashlib.pbkdf2_hmac picks it (the digest size). */
const DIGESTS: Record<string, number> = { sha256: 32, sha384: 48, sha512: 64 };
/** A stored hash comes from the operator, but a huge count would stall every login. */
const MAX_ITERATIONS = 10_000_000;

export interface PasswordHash {
  digest: string;
  iterations: number;
  salt: string;
  hash: string;
}

/** The parts of a stored hash, or null when it is not in the format (never throws). */
export function parsePasswordHash(stored: string): PasswordHash | null {
  const parts = stored.split("$");
  if (parts.length !== 3) return null;
  const [method, salt, hash] = parts as [string, string, string];
  const m = /^pbkdf2:([a-z0-9]+):(\d{1,9})$/.exec(method);
  if (!m) return null;
  const digest = m[1]!;
  const iterations = Number(m[2]);
  const length = DIGESTS[digest];
  if (length === undefined || iterations < 1 || iterations > MAX_ITERATIONS || salt === "") return null;
  if (!new RegExp(`^[0-9a-f]{${length * 2}}$`).test(hash)) return null;
  return { digest, iterations, salt, hash };
}

export async function hashPassword(password: string, opts: { iterations?: number; salt?: string } = {}): Promise<string> {
  const iterations = opts.iterations ?? DEFAULT_ITERATIONS;
  const salt = opts.salt ?? randomBytes(16).toString("hex");
  const derived = await pbkdf2Async(Buffer.from(password, "utf8"), Buffer.from(salt, "utf8"), iterations, 32, "sha256");
  return `pbkdf2:sha256:${iterations}$${salt}$${derived.toString("hex")}`;
}

/** Recomputes the digest and compares in constant time; a malformed stored hash is simply false. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parsePasswordHash(stored);
  if (!parsed) return false;
  const length = DIGESTS[parsed.digest]!;
  const derived = await pbkdf2Async(
    Buffer.from(password, "utf8"),
    Buffer.from(parsed.salt, "utf8"),
    parsed.iterations,
    length,
    parsed.digest,
  );
  return timingSafeEqual(derived, Buffer.from(parsed.hash, "hex"));
}

/**
 * A hash no password matches in practice, verified when the e-mail is unknown so that the answer
 * takes as long as for a known user (no user enumeration by timing).
 */
export const UNMATCHABLE_HASH = `pbkdf2:sha256:${DEFAULT_ITERATIONS}$${"0".repeat(32)}$${"0".repeat(64)}`;
