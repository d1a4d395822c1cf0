// Leases: one holder at a time among a service's replicas, for work that must run in one place in
// order (a read model applying a stream). A lease is a PostgreSQL session advisory lock held on a
// connection of its own: when the holder dies its session ends and the lease is free at once; a
// holder whose session was lost (the database restarted, the connection dropped and was reopened)
// finds out at its next check, because the new session does not hold the lock.
import type { ReservedSql } from "postgres";
import type { Sql } from "./db";

/** The classid of leases' two-key advisory locks; the other key is the lease name's hash. */
const LEASE_LOCK_CLASS = 0x5c1be; // "scribe"

/** The session that holds the leases of one service instance (one connection, taken when first needed). */
export class LeaseSession {
  private session: ReservedSql | null = null;
  private readonly held = new Set<string>();
  /**
   * The session's statements, one after another: a connection runs one at a time anyway, and so a
   * lease taken while another is given up is never taken on the connection going back to the pool.
   */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly sql: Sql) {}

  private inTurn<T>(fn: (conn: () => Promise<ReservedSql>) => Promise<T>): Promise<T> {
    const turn = this.queue.then(() => fn(async () => (this.session ??= await this.sql.reserve())));
    this.queue = turn.catch(() => {});
    return turn;
  }

  /** Takes the lease if nobody holds it; true when this session holds it now. Throws when the database cannot be reached. */
  async tryAcquire(name: string): Promise<boolean> {
    if (this.held.has(name)) return this.holds(name);
    return this.inTurn(async (conn) => {
      try {
        const [row] = await (await conn())<{ acquired: boolean }[]>`
          select pg_try_advisory_lock(${LEASE_LOCK_CLASS}, hashtext(${name})) as acquired`;
        if (row!.acquired) this.held.add(name);
        return row!.acquired;
      } catch (e) {
        this.lost();
        throw e;
      }
    });
  }

  /** Whether this session still holds the lease (false once its connection was lost, or on any error). */
  async holds(name: string): Promise<boolean> {
    if (!this.held.has(name)) return false;
    return this.inTurn(async (conn) => {
      try {
        const [row] = await (await conn())<{ held: boolean }[]>`select exists (
            select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted
              and classid = ${LEASE_LOCK_CLASS} and objid = hashtext(${name})::oid and objsubid = 2
          ) as held`;
        if (!row!.held) this.held.delete(name);
        return row!.held;
      } catch {
        this.lost();
        return false;
      }
    });
  }

  /** Gives the lease up (another replica may take it at once); the connection goes back once nothing is held. */
  async release(name: string): Promise<void> {
    if (!this.held.has(name)) return;
    await this.inTurn(async (conn) => {
      if (!this.held.delete(name)) return;
      await (await conn())`select pg_advisory_unlock(${LEASE_LOCK_CLASS}, hashtext(${name}))`.catch(() => this.lost());
      if (this.held.size === 0 && this.session) {
        this.session.release();
        this.session = null;
      }
    });
  }

  /** The session failed: whatever it held is gone with it; the next lease is taken on a new connection. */
  private lost(): void {
    this.held.clear();
    this.session?.release();
    this.session = null;
  }
}

const sessions = new WeakMap<Sql, LeaseSession>();

/** The lease session of a connection pool: the leases of one service instance share one connection. */
export function leaseSession(sql: Sql): LeaseSession {
  let session = sessions.get(sql);
  if (!session) sessions.set(sql, (session = new LeaseSession(sql)));
  return session;
}
