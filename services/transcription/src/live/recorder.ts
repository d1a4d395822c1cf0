// The live sessions of this process and their end: a flushed session's audio is assembled from
// storage and handed to the file pipeline (or the transcript fails when none arrived), in one
// transaction with the session row locked, so the process that recorded it and a process
// recovering it after a crash never both do it. Sessions whose process stopped renewing them are
// recovered by `recoverAbandoned` (a periodic job).
import { hostname } from "node:os";
import type { Caller } from "@scribe/contracts";
import { BadRequest, Invalid, Unavailable, type Logger, type Sql } from "@scribe/kit";
import { asAppError, assertRead } from "../access";
import { loadTranscript } from "../store";
import { assembleLiveAudio, removeSegments } from "./audio-store";
import { offerProblem } from "./domain/sdp";
import { liveRefusal } from "./domain/transitions";
import { LiveSession, type LiveDeps } from "./session";
import { activeSessionOf, finishLiveSession, insertLiveSession, lockOpenSession } from "./store";
import { beginLiveRun, failLiveRun, handOverLiveRun } from "./transcript";

export const NO_AUDIO = "The live recording ended without any audio";

export interface LiveRecorderDeps extends LiveDeps {
  bucketName: string;
}

export class LiveRecorder {
  private readonly sessions = new Map<string, LiveSession>();
  private readonly instance = `${hostname()}:${process.pid}`;
  private readonly log: Logger;
  private readonly sql: Sql;

  constructor(private readonly deps: LiveRecorderDeps) {
    this.log = deps.log.child({ component: "live" });
    this.sql = deps.sql;
  }

  /** Live sessions running in this process. */
  get active(): number {
    return this.sessions.size;
  }

  /** POST …/record/webrtc: READ, not locked, not already recording; the SDP answer. */
  async start(caller: Caller, transcriptId: string, offer: { sdp: string; type: string }): Promise<{ sdp: string; type: string }> {
    if (offer.type !== "offer") throw Invalid([{ loc: ["body", "type"], msg: "Input should be 'offer'", type: "literal_error" }]);
    const current = await loadTranscript(this.sql, transcriptId, { topics: false, events: false });
    assertRead(current?.state ?? null, caller);
    const refusal = liveRefusal(current!);
    if (refusal) throw BadRequest(refusal);
    const problem = offerProblem(offer.sdp);
    if (problem) throw Invalid([{ loc: ["body", "sdp"], msg: `Invalid SDP offer: ${problem}`, type: "value_error" }]);
    if (this.sessions.size >= this.deps.config.LIVE_MAX_SESSIONS)
      throw Unavailable("Too many live recordings on this server; try again later");

    const session = new LiveSession(this.deps, {
      id: transcriptId,
      source_language: current!.state.source_language,
      target_language: current!.state.target_language,
    });
    let answer: { sdp: string; type: string };
    try {
      answer = await session.answer(offer.sdp);
    } catch (e) {
      session.abandon();
      throw Invalid([{ loc: ["body", "sdp"], msg: `Invalid SDP offer: ${(e as Error).message}`, type: "value_error" }]);
    }
    try {
      await this.sql.begin(async (tx) => {
        const a = await loadTranscript(tx, transcriptId, { forUpdate: true, events: false });
        assertRead(a?.state ?? null, caller);
        const now = this.deps.clock();
        const fresh = new Date(now.getTime() - this.deps.config.LIVE_SESSION_LEASE_SECONDS * 1000);
        if (await activeSessionOf(tx, transcriptId, fresh)) throw BadRequest("A live recording is already running for this transcript");
        await insertLiveSession(tx, {
          id: session.id,
          transcript_id: transcriptId,
          bucket: this.deps.bucketName,
          instance: this.instance,
          now,
        });
        await beginLiveRun(tx, a!, session.id, now);
      });
    } catch (e) {
      session.abandon();
      throw asAppError(e);
    }
    session.onFlushed = async (s, reason) => {
      try {
        await this.finish(s.id, reason);
      } finally {
        this.sessions.delete(s.id);
      }
    };
    this.sessions.set(session.id, session);
    session.begin();
    return answer;
  }

  /**
   * End session `sessionId` from what storage holds. With `staleBefore` (recovery) only when its
   * process has not renewed it since. Returns what happened, null when there was nothing to do.
   */
  async finish(
    sessionId: string,
    reason: string,
    opts: { staleBefore?: Date } = {},
  ): Promise<"processing" | "no_audio" | "superseded" | null> {
    const now = this.deps.clock();
    let transcriptId = "";
    const outcome = await this.sql.begin(async (tx) => {
      const row = await lockOpenSession(tx, sessionId);
      if (!row || (opts.staleBefore && row.heartbeat_at >= opts.staleBefore)) return null;
      transcriptId = row.transcript_id;
      const bucket = this.deps.bucket;
      const audio = await assembleLiveAudio(bucket, row.transcript_id, sessionId);
      if (!audio) {
        await failLiveRun(tx, row.transcript_id, sessionId, NO_AUDIO, now);
        await finishLiveSession(tx, sessionId, "no_audio", now);
        return "no_audio" as const;
      }
      const handed = await handOverLiveRun(
        tx,
        row.transcript_id,
        sessionId,
        { bucket: row.bucket, key: audio.key, size: audio.size },
        this.log,
        now,
      );
      const result = handed ? ("processing" as const) : ("superseded" as const);
      await finishLiveSession(tx, sessionId, result, now);
      this.log.info(
        { sessionId, transcriptId: row.transcript_id, reason, outcome: result, durationMs: audio.durationMs },
        "live recording handed to processing",
      );
      return result;
    });
    if (outcome === "processing" || outcome === "superseded") {
      await removeSegments(this.deps.bucket, transcriptId, sessionId).catch((e) =>
        this.log.warn({ err: e, sessionId }, "live segments not removed"),
      );
    }
    return outcome;
  }

  /** Sessions of processes that died (not renewed for the lease), finished from their stored audio. */
  async recoverAbandoned(opts: { now?: Date } = {}): Promise<{ recovered: string[] }> {
    const staleBefore = new Date((opts.now ?? this.deps.clock()).getTime() - this.deps.config.LIVE_SESSION_LEASE_SECONDS * 1000);
    const rows = await this.sql<
      { id: string }[]
    >`select id from live_session where finished_at is null and heartbeat_at < ${staleBefore} order by heartbeat_at limit 20`;
    const recovered: string[] = [];
    for (const { id } of rows) {
      if (this.sessions.has(id)) continue;
      try {
        const outcome = await this.finish(id, "its process stopped renewing it", { staleBefore });
        if (outcome) recovered.push(id);
      } catch (e) {
        this.log.error({ err: e, sessionId: id }, "recovering an abandoned live session failed; retried next round");
      }
    }
    return { recovered };
  }

  /** Service stop: every session flushed and handed over. */
  async stopAll(reason = "service stopping"): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.stop(reason)));
  }

  /** Tests: the process "dies" — sessions stop at once, nothing is flushed or handed over. */
  abandonAll(): void {
    for (const s of this.sessions.values()) s.abandon();
    this.sessions.clear();
  }
}
