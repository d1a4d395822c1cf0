// Failures in words for the operator: an unreachable database or bus says which one, where, and what
// to check (with the URL's password redacted); everything else is its message. Stack traces only
// with SCRIBE_DEBUG=1.
import type { Env } from "@scribe/kit";
import { redactSecretsInText } from "./redact";

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "ECONNRESET",
  "EAI_AGAIN",
  "CONNECT_TIMEOUT",
]);
const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/scribe";
const DEFAULT_NATS_URL = "nats://127.0.0.1:4222";

interface NodeishError {
  name?: string;
  code?: string;
  message?: string;
  cause?: unknown;
  /** Set on socket errors: where the connection went. */
  address?: string;
  hostname?: string;
  port?: number;
}

function hostPort(url: string, defaultPort: number): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || defaultPort}`;
  } catch {
    return url;
  }
}

/** The error, or the first of its causes, that is a failed network connection. */
function networkFailure(e: unknown): NodeishError | null {
  for (let cur = e as NodeishError | undefined, depth = 0; cur && depth < 5; cur = cur.cause as NodeishError | undefined, depth++) {
    if (typeof cur.code === "string" && NETWORK_CODES.has(cur.code)) return cur;
  }
  return null;
}

export function explainError(e: unknown, env: Env): string {
  const err = (e ?? {}) as NodeishError;
  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const natsUrl = env.NATS_URL || DEFAULT_NATS_URL;
  const shownDb = redactSecretsInText(databaseUrl);
  const network = networkFailure(e);
  // The NATS client wraps its socket errors in a ConnectionError; postgres.js throws the socket's.
  if (err.name === "ConnectionError" || (network && err !== network && /nats/i.test(String(err.message)))) {
    return `cannot reach NATS at ${hostPort(natsUrl.split(",")[0]!, 4222)} (is it running? NATS_URL=${redactSecretsInText(natsUrl)})${network ? `: ${network.code}` : ""}`;
  }
  if (network && isDatabase(network, databaseUrl)) {
    return `cannot reach PostgreSQL at ${hostPort(databaseUrl, 5432)} (is it running? DATABASE_URL=${shownDb}): ${network.code}`;
  }
  if (err.name === "PostgresError") {
    return `PostgreSQL at ${hostPort(databaseUrl, 5432)} refused: ${redactSecretsInText(String(err.message))} (DATABASE_URL=${shownDb})`;
  }
  if (network) {
    const where = network.port ? `${network.address ?? network.hostname ?? "?"}:${network.port}` : (network.hostname ?? "the server");
    return `cannot reach ${where}: ${network.code} (is it running?)`;
  }
  return redactSecretsInText(err.message ?? String(e));
}

function isDatabase(network: NodeishError, databaseUrl: string): boolean {
  try {
    const u = new URL(databaseUrl);
    if (network.port !== undefined) return network.port === Number(u.port || 5432);
    return network.hostname === u.hostname;
  } catch {
    return false;
  }
}
