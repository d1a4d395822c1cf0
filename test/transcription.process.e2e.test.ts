// Processing end to end: POST /v1/transcripts, chunked upload, recording.ready → the transcription
// service starts a run of the file pipeline; the run completes (transcript.completed); POST
// /process cancels a running run and starts a new one, which completes with its own run id.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ok, type ScribeClient } from "@scribe/client";
import { connectDb, type Sql } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { speechMp3, uploadWhole } from "./support/media";
import { startSystem, streamEvents, type TestSystem } from "./support/system";

let sys: TestSystem;
let alice: ScribeClient;
let sql: Sql;
let storageRoot: string;

beforeAll(async () => {
  storageRoot = await mkdtemp(join(tmpdir(), "scribe-tproc-"));
  sys = await startSystem({
    label: "tprocess",
    services: ["rooms", "recordings", "projection", "transcription", "gateway"],
    env: { STORAGE_LOCAL_ROOT: storageRoot },
  });
  alice = sys.client("alice");
  sql = connectDb(sys.db.url, { schema: "transcription", max: 2 });
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await sys?.stop();
  await rm(storageRoot, { recursive: true, force: true });
});

const path = (id: string) => ({ params: { path: { transcript_id: id } } });
const read = (id: string) => ok(alice.GET("/v1/transcripts/{transcript_id}", path(id)));
const reprocess = (id: string) => ok(alice.POST("/v1/transcripts/{transcript_id}/process", path(id)));
const runOf = async (id: string) =>
  (await sql<{ current_run_id: string | null }[]>`select current_run_id from transcript where id = ${id}`)[0]?.current_run_id ?? null;
const runStatus = async (runId: string) =>
  (await sql<{ status: string }[]>`select status from workflow_runs where id = ${runId}`)[0]?.status;
const completions = async (id: string) =>
  (await streamEvents(sys.prefix, "TRANSCRIPTS"))
    .filter((e) => e.type === "transcript.completed" && (e.data.transcript as { id: string }).id === id)
    .map((e) => e.data.run_id as string);

// transcript.completed is read off the stream, which the projection folds a moment later: the pipeline,
// not this client, wrote it, so no version of the client's own makes the GET wait for it.
const endedInReadModel = (id: string) =>
  eventually(
    async () => {
      const t = await read(id);
      return t.status === "ended" ? t : null;
    },
    { message: "the read model shows the transcript ended" },
  );

async function uploaded(): Promise<string> {
  const t = await ok(alice.POST("/v1/transcripts", { body: { name: "Upload" } }));
  await ok(uploadWhole(alice, t.id, speechMp3(), "meeting.mp3"));
  return t.id;
}

describe("processing an upload", () => {
  let id: string;
  let firstRun: string;
  beforeAll(async () => {
    id = await uploaded();
    firstRun = await eventually(() => runOf(id), { message: "a run started for the upload" });
  });

  it("starts one run of the file pipeline for the uploaded file; the transcript becomes a file transcript", async () => {
    const [run] = await sql<{ workflow: string; subject: string }[]>`select workflow, subject from workflow_runs where id = ${firstRun}`;
    expect(run!.subject).toBe(id);
    // The run starts in the write model; the read model answers the GET once it folded the same change.
    const t = await eventually(
      async () => {
        const t = await read(id);
        return t.source_kind === "file" ? t : null;
      },
      { message: "the read model shows a file transcript" },
    );
    expect(t.source_kind).toBe("file");
    expect(["uploaded", "processing", "ended"]).toContain(t.status);
  });

  it("completes the run: status ended, a duration, transcript.completed with the run id", async () => {
    await eventually(async () => (await completions(id)).includes(firstRun), { timeoutMs: 180_000, message: "the first run completed" });
    const t = await endedInReadModel(id);
    expect(t.status).toBe("ended");
    expect(t.duration).toBeGreaterThan(0);
  }, 200_000);

  it("reprocesses: a second process cancels the running run; the last run completes again with a new run id", async () => {
    expect(await reprocess(id)).toEqual({ status: "ok" });
    const second = (await runOf(id))!;
    expect(second).not.toBe(firstRun);
    expect(await reprocess(id)).toEqual({ status: "ok" });
    const third = (await runOf(id))!;
    expect(third).not.toBe(second);
    expect(await runStatus(second)).toBe("cancelled");
    await eventually(async () => (await completions(id)).includes(third), { timeoutMs: 180_000, message: "the last run completed" });
    expect(await completions(id)).not.toContain(second);
    expect((await endedInReadModel(id)).status).toBe("ended");
  }, 200_000);

  it("shows the runs with their steps through the API, newest first, to those who may read the transcript", async () => {
    const { runs } = await ok(alice.GET("/v1/transcripts/{transcript_id}/runs", path(id)));
    expect(runs.map((r) => r.id)).toContain(firstRun);
    const last = runs[0]!;
    expect(last).toMatchObject({ workflow: "transcript-file", status: "succeeded", error: null });
    expect(last.steps.length).toBeGreaterThan(3);
    for (const step of last.steps) {
      expect(step).toMatchObject({ status: "succeeded", last_error: null });
      expect(step.attempts).toBeGreaterThanOrEqual(1);
      expect(step.duration_ms).toEqual(expect.any(Number));
    }
    expect(runs.find((r) => r.status === "cancelled")).toBeDefined();
    expect((await sys.client("bob").GET("/v1/transcripts/{transcript_id}/runs", path(id))).response.status).toBe(403);
    expect((await alice.GET("/v1/transcripts/{transcript_id}/runs", path(randomUUID()))).response.status).toBe(404);
  });

  it("starts nothing for a soft-deleted transcript", async () => {
    const other = await ok(alice.POST("/v1/transcripts", { body: { name: "Gone" } }));
    await ok(alice.DELETE("/v1/transcripts/{transcript_id}", path(other.id)));
    expect((await alice.POST("/v1/transcripts/{transcript_id}/process", path(other.id))).response.status).toBe(404);
  });
});
