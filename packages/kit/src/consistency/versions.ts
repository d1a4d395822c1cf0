// Read-your-writes across services (docs/ARCHITECTURE.md, "Consistency: read-your-writes").
// An owner that changes an entity reports the entity's new version while answering; the gateway
// remembers it and passes the versions a request refers to along with the request; a service that
// keeps a copy of that entity reads the version it must reach while it handles the request.
import { AsyncLocalStorage } from "node:async_hooks";

/** One entity version: `kind` of entity, the `field` it is looked up by (id, name) and its value. */
export interface VersionMark {
  kind: string;
  field: string;
  value: string;
  version: number;
}

const markKey = (kind: string, field: string, value: string) =>
  `${encodeURIComponent(kind)}:${encodeURIComponent(field)}:${encodeURIComponent(value)}`;

/** `room:id:…=3,room:name:…=3` — fits NATS and HTTP headers (no commas or spaces in the parts). */
export function encodeVersionMarks(marks: readonly VersionMark[]): string {
  return marks.map((m) => `${markKey(m.kind, m.field, m.value)}=${m.version}`).join(",");
}

/** Parses what `encodeVersionMarks` wrote; anything malformed is skipped, never an error. */
export function decodeVersionMarks(header: string | null | undefined): VersionMark[] {
  if (!header) return [];
  const marks: VersionMark[] = [];
  for (const part of header.split(",").slice(0, 64)) {
    const m = /^([^:=]+):([^:=]+):([^:=]*)=(\d{1,9})$/.exec(part.trim());
    if (!m) continue;
    try {
      marks.push({
        kind: decodeURIComponent(m[1]!),
        field: decodeURIComponent(m[2]!),
        value: decodeURIComponent(m[3]!),
        version: Number(m[4]),
      });
    } catch {
      // A broken escape in a client-sent header: ignore that mark.
    }
  }
  return marks;
}

/** Asks another service over request/reply on behalf of the request being handled. */
export type AskOwner = (subject: string, request: unknown) => Promise<unknown>;

interface VersionScope {
  /** Versions the request must see, by mark key. */
  required: Map<string, number>;
  ask: AskOwner;
  /** Versions this handler wrote, reported back to the caller. */
  written: VersionMark[];
}

const scope = new AsyncLocalStorage<VersionScope>();

/** Runs a request handler with the versions it must see; answers what it wrote besides. */
export async function withVersionScope<T>(
  required: readonly VersionMark[],
  ask: AskOwner,
  work: () => Promise<T>,
): Promise<{ result: T; written: VersionMark[] }> {
  const s: VersionScope = { required: new Map(), ask, written: [] };
  for (const m of required) {
    const key = markKey(m.kind, m.field, m.value);
    s.required.set(key, Math.max(s.required.get(key) ?? 0, m.version));
  }
  const result = await scope.run(s, work);
  return { result, written: s.written };
}

/** The version of an entity the current request must see (0: no requirement). */
export function requiredVersion(kind: string, field: string, value: string): number {
  return scope.getStore()?.required.get(markKey(kind, field, value)) ?? 0;
}

/** How to reach an entity's owner from the current request; null outside a request (consumers, jobs). */
export function askOwner(): AskOwner | null {
  return scope.getStore()?.ask ?? null;
}

/** An owner reports a committed change: the caller learns the entity's version under every lookup field. */
export function reportVersion(kind: string, lookups: Record<string, string>, version: number): void {
  const s = scope.getStore();
  if (!s) return;
  for (const [field, value] of Object.entries(lookups)) s.written.push({ kind, field, value, version });
}

/**
 * A feed position: how far an owner's stream of changes to every entity of a `kind` has come
 * (a counter the owner advances in commit order). It is not looked up by a request's fields: a read
 * that depends on all entities of the kind (a search whose visibility follows rooms' sharing)
 * requires it, so every request carries the latest known position (value `*`).
 */
export const FEED_VALUE = "*";
const FEED_FIELD = "feed";

/** An owner reports the feed position its committed change reached. */
export function reportFeedPosition(kind: string, position: number): void {
  reportVersion(kind, { [FEED_FIELD]: FEED_VALUE }, position);
}

/** The feed position of `kind` the current request must see (0: no requirement). */
export function requiredFeedPosition(kind: string): number {
  return requiredVersion(kind, FEED_FIELD, FEED_VALUE);
}

/**
 * What a gateway replica knows of entity versions, from the changes it relayed and from other
 * replicas' reports: bounded, the least recently touched forgotten first.
 */
export class KnownVersions {
  private readonly byValue = new Map<string, Map<string, VersionMark>>();

  constructor(private readonly capacity = 50_000) {}

  record(marks: readonly VersionMark[]): void {
    for (const m of marks) {
      const entries = this.byValue.get(m.value) ?? new Map<string, VersionMark>();
      this.byValue.delete(m.value);
      const key = markKey(m.kind, m.field, m.value);
      const known = entries.get(key);
      if (!known || known.version < m.version) entries.set(key, m);
      this.byValue.set(m.value, entries);
    }
    while (this.byValue.size > this.capacity) {
      const oldest = this.byValue.keys().next().value as string;
      this.byValue.delete(oldest);
    }
  }

  /** The known versions of entities looked up by any of these values (a request's fields). */
  marksFor(values: Iterable<string>): VersionMark[] {
    const marks: VersionMark[] = [];
    for (const v of values) for (const m of this.byValue.get(v)?.values() ?? []) marks.push(m);
    return marks;
  }
}

/**
 * The string values among a request's top-level fields — what a request may look an entity up by —
 * and the feed positions' value, which every request carries.
 */
export function lookupValuesOf(req: object): string[] {
  return [...Object.values(req).filter((v): v is string => typeof v === "string"), FEED_VALUE];
}
