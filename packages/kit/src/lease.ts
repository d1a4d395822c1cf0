// Leases: one holder at a time among a service's replicas, for work that must run in one place in
// order (a read model applying a stream). A lease is a PostgreSQL session advisory lock held on a
// connection of its own: when the holder dies its session ends and the lease is free at once; a
// holder whose session was lost (the database restarted, the connection dropped and was reopened)
// finds out at its next check, because the new session does not hold the lock.
import type { Sql } from "./db";

/** The classid of leases' two-key advisory locks; the other key is the lease name's hash. */
const LEASE_LOCK_CLASS = 0x5c1be; // "scribe"

/**
 * The session that holds the leases of one service instance: a pool of one connection of its own
 * (`connectDb(url, { max: 1, idleTimeout: 0 })`), never closed for being idle. After the connection
 * is lost the pool opens a new one at the next statement: a new session, holding nothing.
 * (Not a connection reserved from the service's pool: postgres.js puts a reserved connection that
 * closed back among the open ones when it is released, and hands it to the next query.)
 */
export class LeaseSession {
  private readonly held = new Set<string>();

  constructor(private readonly session: Sql) {}

  /** Takes the lease if nobody holds it; true when this session holds it now. Throws when the database cannot be reached. */
  async tryAcquire(name: string): Promise<boolean> {
    if (this.held.has(name)) return this.holds(name);
    // Right after its connection was lost, the pool may fail one more statement with the same
    // error before it opens a new connection: the second try is on the new one.
    for (let attempt = 1; ; attempt++) {
      try {
        const [row] = await this.session<{ acquired: boolean }[]>`
          select pg_try_advisory_lock(${LEASE_LOCK_CLASS}, hashtext(${name})) as acquired`;
        if (row!.acquired) this.held.add(name);
        return row!.acquired;
      } catch (e) {
        this.held.clear();
        if (attempt >= 2) throw e;
      }
    }
  }

  /** Whether this session still holds the lease (false once its connection was lost, or on any error). */
  async holds(name: string): Promise<boolean> {
    if (!this.held.has(name)) return false;
    try {
      const [row] = await this.session<{ held: boolean }[]>`select exists (
          select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted
            and classid = ${LEASE_LOCK_CLASS} and objid = hashtext(${name})::oid and objsubid = 2
        ) as held`;
      if (!row!.held) this.held.delete(name);
      return row!.held;
    } catch {
      // The connection failed: whatever this session held went with it.
      this.held.clear();
      return false;
    }
  }

  /** Gives the lease up: another replica may take it at once. */
  async release(name: string): Promise<void> {
    if (!this.held.delete(name)) return;
    await this.session`select pg_advisory_unlock(${LEASE_LOCK_CLASS}, hashtext(${name}))`.catch(() => this.held.clear());
  }

  /** Ends the session (every lease it holds with it). */
  async close(): Promise<void> {
    this.held.clear();
    await this.session.end({ timeout: 5 });
  }
}
