// PostgreSQL access: a postgres.js pool bound to one service's schema (search_path), and transactions.
import postgres from "postgres";

export type Sql = postgres.Sql<{}>;
export type Tx = postgres.TransactionSql<{}>;
/** What store functions accept: the pool or an open transaction. */
export type Db = Sql | Tx;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;
export function assertSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
  return schema;
}

export interface DbOptions {
  /** The service's own schema; unqualified SQL resolves there. */
  schema: string;
  max?: number;
  applicationName?: string;
  /** Session settings of every connection (e.g. planner settings a service's queries need). */
  settings?: Record<string, string>;
  /** Seconds an idle connection stays open (30); 0 keeps it (a connection that holds session locks). */
  idleTimeout?: number;
}

export function connectDb(url: string, opts: DbOptions): Sql {
  const schema = assertSchemaName(opts.schema);
  return postgres(url, {
    max: opts.max ?? 10,
    idle_timeout: opts.idleTimeout ?? 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { ...opts.settings, search_path: `${schema},public`, application_name: opts.applicationName ?? `scribe-${schema}` },
  });
}

/** Check the database answers (readiness). */
export async function pingDb(sql: Sql): Promise<void> {
  await sql`select 1`;
}

/**
 * A read-decide-write transaction in two round trips instead of four (`sql.begin` waits for BEGIN
 * and for the callback before COMMIT): BEGIN is sent with `read`'s statements and COMMIT right
 * after `write`'s, pipelined on one reserved connection. `write` must send its statements before
 * it awaits anything else (store functions called at once do). A failed statement turns the COMMIT
 * into a rollback (PostgreSQL ends a failed transaction so); a failure before COMMIT was sent rolls
 * back. `write`'s rejection (a refused command) comes after the transaction ended.
 */
export async function readThenWrite<R, W>(sql: Sql, read: (db: Db) => Promise<R>, write: (db: Db, read: R) => Promise<W>): Promise<W> {
  const conn = await sql.reserve();
  let open = true;
  try {
    // execute() sends at once; an awaited query goes a few microtasks later, so BEGIN is first.
    const [, reading] = await Promise.allSettled([conn`begin`.execute(), read(conn)]);
    if (reading.status === "rejected") throw reading.reason;
    const writing = settled(write(conn, reading.value));
    // write's statements are sent within this turn's microtasks; COMMIT goes after them.
    await new Promise((resolve) => setImmediate(resolve));
    const [written, committed] = await Promise.all([writing, settled(conn`commit`.execute())]);
    if (committed.status === "rejected") throw committed.reason;
    open = false;
    if (written.status === "rejected") throw written.reason;
    return written.value;
  } finally {
    if (open) await conn`rollback`.catch(() => {});
    conn.release();
  }
}

const settled = <T>(p: Promise<T>): Promise<PromiseSettledResult<T>> => Promise.allSettled([p]).then(([r]) => r!);
