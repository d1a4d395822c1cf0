// SQL of the live_session table (migrations/transcription/0002_live_sessions.sql).
import type { Db } from "@scribe/kit";

export interface LiveSessionRow {
  id: string;
  transcript_id: string;
  bucket: string;
  instance: string;
  started_at: Date;
  heartbeat_at: Date;
  stored_bytes: number;
  finished_at: Date | null;
  outcome: string | null;
}

export async function insertLiveSession(
  db: Db,
  row: { id: string; transcript_id: string; bucket: string; instance: string; now: Date },
): Promise<void> {
  await db`insert into live_session (id, transcript_id, bucket, instance, started_at, heartbeat_at)
    values (${row.id}, ${row.transcript_id}, ${row.bucket}, ${row.instance}, ${row.now}, ${row.now})`;
}

/** The process holding the session is alive and has stored `storedBytes` so far. */
export async function renewLiveSession(db: Db, id: string, storedBytes: number, now: Date): Promise<void> {
  await db`update live_session set heartbeat_at = ${now}, stored_bytes = ${storedBytes} where id = ${id} and finished_at is null`;
}

/** The open session of a transcript whose process renewed it since `freshSince`, if any. */
export async function activeSessionOf(db: Db, transcriptId: string, freshSince: Date): Promise<LiveSessionRow | null> {
  const rows = await db<LiveSessionRow[]>`select * from live_session
    where transcript_id = ${transcriptId} and finished_at is null and heartbeat_at >= ${freshSince} limit 1`;
  return rows[0] ?? null;
}

/** Lock the session for finishing; null when it is already finished (or another process finishes it). */
export async function lockOpenSession(db: Db, id: string): Promise<LiveSessionRow | null> {
  const rows = await db<LiveSessionRow[]>`select * from live_session where id = ${id} and finished_at is null for update skip locked`;
  return rows[0] ?? null;
}

/** Open sessions nobody renewed since `staleBefore` (their process died), locked for this round. */
export async function lockAbandonedSessions(db: Db, staleBefore: Date, limit: number): Promise<LiveSessionRow[]> {
  return db<LiveSessionRow[]>`select * from live_session where finished_at is null and heartbeat_at < ${staleBefore}
    order by heartbeat_at limit ${limit} for update skip locked`;
}

export async function finishLiveSession(db: Db, id: string, outcome: string, now: Date): Promise<void> {
  await db`update live_session set finished_at = ${now}, outcome = ${outcome} where id = ${id}`;
}
