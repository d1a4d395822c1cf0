// Test fixtures of the search service: the read model it searches.
import { connectDb, type Sql } from "@scribe/kit";
import { TEST_ADMIN_URL } from "@scribe/kit/testing";

/** Whether this server has the RUM extension: its tests run only there (deploy/ensure-deps.sh installs it). */
export const RUM_AVAILABLE = await (async () => {
  const admin = connectDb(TEST_ADMIN_URL, { schema: "public", max: 1 });
  try {
    const [row] = await admin<
      { available: boolean }[]
    >`select exists (select 1 from pg_available_extensions where name = 'rum') as available`;
    return row!.available;
  } finally {
    await admin.end({ timeout: 1 });
  }
})();

/** A read-model transcript row as the projection keeps it: an ended, private file transcript, then `fields`. */
export function transcriptRow(sql: Sql, fields: { id: string; created_at: Date; user_id: string } & Record<string, unknown>) {
  return {
    version: 1,
    state_version: 1,
    name: `Transcript ${fields.id}`,
    status: "ended",
    locked: false,
    duration: 60_000,
    updated_at: new Date(Date.UTC(2026, 0, 1)),
    participants: sql.json([]),
    source_language: "en",
    target_language: "en",
    reviewed: false,
    audio_location: "storage",
    share_mode: "private",
    source_kind: "file",
    ...fields,
  };
}
