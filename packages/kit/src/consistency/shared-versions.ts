// Entity versions shared by every gateway replica (docs/ARCHITECTURE.md, "Consistency:
// read-your-writes"). A replica that relays a write stores the written versions in one JetStream
// key-value bucket before it answers; every replica watches the bucket into its in-memory
// `KnownVersions`, so a request arriving at any replica right after the write passes the written
// version along — read from memory, with no extra round trip on the request path.
import { createHash } from "node:crypto";
import { Kvm, type KV, type KvWatchEntry } from "@nats-io/kv";
import type { QueuedIterator } from "@nats-io/transport-node";
import type { Bus } from "../bus/connection";
import { ensureStreamReplicas } from "../bus/streams";
import type { Logger } from "../logger";
import { KnownVersions, type VersionMark } from "./versions";

/** The bucket's logical name; the deployment prefix is applied like a stream's (`<PREFIX>_VERSIONS`). */
export const VERSIONS_BUCKET = "VERSIONS";
/**
 * How long the bucket keeps a version. Events bring copies up to date within milliseconds; the
 * hour covers a consumer that was down for a while. Replicas that are running keep what they
 * watched in memory beyond that (bounded by `KnownVersions`).
 */
const VERSION_TTL_MS = 60 * 60 * 1000;
/** How long a write waits for the watch to deliver its own version (then answers anyway). */
const FANOUT_WAIT_MS = 500;
/** How long start-up waits for the bucket's current content. */
const INITIAL_LOAD_WAIT_MS = 5_000;
/** Compare-and-set attempts when replicas write the same entity at once. */
const CAS_ATTEMPTS = 5;

const keyOf = (m: VersionMark) => createHash("sha256").update(`${m.kind}\u0000${m.field}\u0000${m.value}`).digest("hex").slice(0, 40);

function markOf(entry: KvWatchEntry): VersionMark | null {
  try {
    const m = entry.json<Partial<VersionMark>>();
    const strings = typeof m.kind === "string" && typeof m.field === "string" && typeof m.value === "string";
    return strings && Number.isSafeInteger(m.version) ? (m as VersionMark) : null;
  } catch {
    return null;
  }
}

export class SharedVersions {
  private readonly known = new KnownVersions();
  private seenRevision = 0;
  private readonly waiters = new Set<{ revision: number; done: () => void }>();

  private constructor(
    private readonly kv: KV,
    private readonly watch: QueuedIterator<KvWatchEntry>,
    private readonly log: Logger,
  ) {}

  /** Opens (creating it when missing) the deployment's bucket and starts watching it. */
  static async open(bus: Bus, log: Logger): Promise<SharedVersions> {
    const kv = await new Kvm(bus.js).create(bus.stream(VERSIONS_BUCKET), {
      history: 1,
      ttl: VERSION_TTL_MS,
      replicas: bus.streamReplicas,
    });
    // create() leaves an existing bucket as it is; its stream follows NATS_STREAM_REPLICAS like every other.
    await ensureStreamReplicas(bus, `KV_${bus.stream(VERSIONS_BUCKET)}`);
    const watch = await kv.watch();
    const shared = new SharedVersions(kv, watch, log);
    void shared.follow();
    const status = await kv.status();
    await shared.until(status.streamInfo.state.last_seq, INITIAL_LOAD_WAIT_MS);
    return shared;
  }

  /** The known versions of entities a request names (its string fields): memory only. */
  marksFor(values: Iterable<string>): VersionMark[] {
    return this.known.marksFor(values);
  }

  /**
   * Records versions a write reported: at once in this replica, then in the bucket (a newer version
   * is never replaced by an older one), then until the watch delivered it, so the bucket has sent it
   * to the other replicas before the writer is answered. A bucket that cannot be reached is logged,
   * not the writer's failure: the write itself succeeded.
   */
  async record(marks: readonly VersionMark[]): Promise<void> {
    this.known.record(marks);
    try {
      const revisions = await Promise.all(marks.map((m) => this.store(m)));
      await this.until(Math.max(0, ...revisions), FANOUT_WAIT_MS);
    } catch (err) {
      this.log.warn({ err }, "could not share entity versions with other gateway replicas");
    }
  }

  async close(): Promise<void> {
    this.watch.stop();
    for (const w of this.waiters) w.done();
  }

  private async store(m: VersionMark): Promise<number> {
    const key = keyOf(m);
    const data = JSON.stringify(m);
    for (let attempt = 1; ; attempt++) {
      const entry = await this.kv.get(key);
      try {
        if (!entry || entry.operation !== "PUT") return await this.kv.create(key, data);
        if ((entry.json<VersionMark>().version ?? 0) >= m.version) return entry.revision;
        return await this.kv.update(key, data, entry.revision);
      } catch (e) {
        // Another replica wrote the key in between: read it again.
        if (attempt >= CAS_ATTEMPTS) throw e;
      }
    }
  }

  private async follow(): Promise<void> {
    for await (const entry of this.watch) {
      if (entry.operation === "PUT") {
        const mark = markOf(entry);
        if (mark) this.known.record([mark]);
        else this.log.warn({ key: entry.key }, "unreadable entry in the versions bucket");
      }
      this.seenRevision = Math.max(this.seenRevision, entry.revision);
      for (const w of this.waiters) if (w.revision <= this.seenRevision) w.done();
    }
  }

  /** Resolves once the watch delivered `revision`, or after `timeoutMs`. */
  private until(revision: number, timeoutMs: number): Promise<void> {
    if (revision <= this.seenRevision) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        revision,
        done: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.done, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}
