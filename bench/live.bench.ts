// Live recording (POST …/record/webrtc): werift peers in this process stream synthesised speech in
// real time to the whole stack (gateway, transcription, projection). Measured:
//   - latency from the end of each spoken sentence to its TRANSCRIPT event on the transcript
//     socket (p50/p95; goal p50 ≤ 2 s), next to the same stream recogniser fed the recording in
//     real time by itself (the floor: what recognition costs, without WebRTC, decoding and events);
//   - CPU per live session (this process and its ffmpeg/pocketsphinx children, per second of
//     audio), next to transcribing the whole recording at once offline;
//   - sessions at once (BENCH_LIVE_SESSIONS, default 1,2,3): whether they stay real time (every
//     sentence announced within LIVE_REALTIME_SECONDS of its end).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { normaliseForWer, PocketsphinxStt } from "@scribe/ai";
import { eventually } from "@scribe/kit/testing";
import { liveDictation, synthesizeMeeting, type MeetingFixture } from "@scribe/simulators";
import { connectLivePeer, opusPacketsOf } from "../test/support/live-peer";
import { startSystem, type TestSystem } from "../test/support/system";
import { mustOpen, type OpenSocket } from "../test/support/websocket";
import { percentile, report } from "./report";

const MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";
const SESSIONS = (process.env.BENCH_LIVE_SESSIONS ?? "1,2,3").split(",").map(Number);
const REALTIME_SECONDS = Number(process.env.LIVE_REALTIME_SECONDS ?? 4);
const TICKS = 100; // USER_HZ of /proc

/** CPU seconds of this process and its waited-for children (ffmpeg, pocketsphinx) so far. */
async function cpuSeconds(): Promise<number> {
  const stat = (await readFile("/proc/self/stat", "utf8")).split(") ")[1]!.split(" ");
  // fields 14–17 (utime stime cutime cstime), counted from after the command name
  return [11, 12, 13, 14].reduce((n, i) => n + Number(stat[i]), 0) / TICKS;
}

/** Seconds from the end of each spoken sentence to the TRANSCRIPT line that carries most of its words. */
function sentenceLatencies(fixture: MeetingFixture, startedAt: number, lines: { text: string; at: number }[]): number[] {
  const out: number[] = [];
  for (const turn of fixture.truth.turns) {
    const words = new Set(turn.words);
    let best: { score: number; at: number } | null = null;
    for (const l of lines) {
      const score = normaliseForWer(l.text).filter((w) => words.has(w)).length;
      if (score > 0 && (!best || score > best.score)) best = { score, at: l.at };
    }
    if (best) out.push((best.at - (startedAt + turn.end * 1000)) / 1000);
  }
  return out;
}

async function round(sys: TestSystem, bearer: string[], packets: Buffer[], fixture: MeetingFixture, sessions: number) {
  const alice = sys.client("alice");
  const runs = await Promise.all(
    Array.from({ length: sessions }, async (_, i) => {
      const { data: created } = await alice.POST("/v1/transcripts", { body: { name: `bench live ${sessions}/${i}` } });
      const id = created!.id;
      const socket: OpenSocket = await mustOpen(sys.baseUrl, `/v1/transcripts/${id}/events`, bearer);
      const lines: { text: string; at: number }[] = [];
      socket.ws.on("message", (raw: Buffer) => {
        const m = JSON.parse(raw.toString()) as { event: string; data: { text?: string } };
        if (m.event === "TRANSCRIPT") lines.push({ text: m.data.text ?? "", at: Date.now() });
      });
      const peer = await connectLivePeer(alice, id);
      return { id, socket, lines, peer, startedAt: 0, flushed: false };
    }),
  );
  const cpuBefore = await cpuSeconds();
  for (const r of runs) {
    r.socket.ws.on("message", (raw: Buffer) => {
      const m = JSON.parse(raw.toString()) as { event: string; data: { value?: string } };
      if (m.event === "STATUS" && m.data.value !== "recording") r.flushed = true;
    });
  }
  await Promise.all(
    runs.map((r) =>
      r.peer.play(packets, (i) => {
        if (i === 0) r.startedAt = Date.now();
      }),
    ),
  );
  for (const r of runs) r.peer.stop();
  // Every sentence announced (or a minute past the end), then the sessions are flushed.
  await eventually(() => runs.every((r) => sentenceLatencies(fixture, r.startedAt, r.lines).length === fixture.truth.turns.length), {
    timeoutMs: 60_000,
    intervalMs: 100,
  }).catch(() => {});
  // The recognisers' CPU counts once they exited (the session flushed: status leaves `recording`).
  await eventually(() => runs.every((r) => r.flushed), { timeoutMs: 60_000, intervalMs: 50 }).catch(() => {});
  const cpu = (await cpuSeconds()) - cpuBefore;
  const latencies = runs.flatMap((r) => sentenceLatencies(fixture, r.startedAt, r.lines)).sort((a, b) => a - b);
  for (const r of runs) {
    r.socket.close();
    await r.peer.close();
    // Post-processing of this round must not load the next one.
    await alice.DELETE("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: r.id } } });
    await alice.DELETE("/v1/transcripts/{transcript_id}/destroy", { params: { path: { transcript_id: r.id } } });
  }
  return {
    latencies,
    missing: sessions * fixture.truth.turns.length - latencies.length,
    cpuPerAudioSecond: cpu / sessions / fixture.truth.duration,
  };
}

/** Sentence end → utterance of the stream recogniser by itself, fed the recording at real-time pace. */
async function recogniserAlone(stt: PocketsphinxStt, fixture: MeetingFixture): Promise<number[]> {
  const pcm = (await readFile(fixture.mixPath)).subarray(44);
  const lines: { text: string; at: number }[] = [];
  const stream = stt.openStream({
    language: "en",
    onUtterance: (u) => lines.push({ text: u.words.map((w) => w.text).join(""), at: Date.now() }),
  });
  const startedAt = Date.now();
  let fed = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(pcm.length, Math.floor((Date.now() - startedAt) * 16) * 2);
      if (due > fed) stream.write(pcm.subarray(fed, due));
      fed = due;
      if (fed < pcm.length) return;
      clearInterval(timer);
      resolve();
    }, 20);
  });
  await stream.end();
  return sentenceLatencies(fixture, startedAt, lines);
}

export default async function bench(): Promise<void> {
  const fixture = await synthesizeMeeting(liveDictation);
  const packets = await opusPacketsOf(fixture.mixPath);
  const storageRoot = await mkdtemp(join(tmpdir(), "scribe-bench-live-"));
  console.log(
    `${fixture.truth.turns.length} sentences, ${fixture.truth.duration.toFixed(1)} s of speech per session; ${cpus().length} cores`,
  );

  // Baselines: the stream recogniser alone, fed the recording in real time; the whole recording offline.
  const stt = new PocketsphinxStt({ modelDir: MODEL_DIR, chunkSeconds: 120, concurrency: 1 });
  const perSentence = (await recogniserAlone(stt, fixture)).sort((a, b) => a - b);
  const wholeCpuBefore = await cpuSeconds();
  await stt.transcribe(fixture.mixPath, { language: "en" });
  const wholeCpu = ((await cpuSeconds()) - wholeCpuBefore) / fixture.truth.duration;

  const sys = await startSystem({
    label: "benchlive",
    services: ["rooms", "recordings", "projection", "transcription", "gateway"],
    env: { STORAGE_LOCAL_ROOT: storageRoot, LIVE_RECOVERY_INTERVAL_MS: "0", LOG_LEVEL: "error" },
  });
  try {
    const bearer = ["bearer", await sys.token("alice")];
    for (const sessions of SESSIONS) {
      const r = await round(sys, bearer, packets, fixture, sessions);
      const p50 = percentile(r.latencies, 50);
      const p95 = percentile(r.latencies, 95);
      const floor = { name: "stt alone", label: "the stream recogniser alone", value: percentile(perSentence, 50), unit: "s" };
      report({ name: `live ${sessions} session(s): sentence end → TRANSCRIPT p50`, value: p50, unit: "s" }, floor);
      report(
        { name: `live ${sessions} session(s): sentence end → TRANSCRIPT p95`, value: p95, unit: "s" },
        { ...floor, value: percentile(perSentence, 95) },
      );
      report(
        { name: `live ${sessions} session(s): CPU per session`, value: r.cpuPerAudioSecond, unit: "cores" },
        { name: "offline", label: "transcribing the whole recording offline", value: wholeCpu, unit: "cores" },
      );
      const realtime = r.missing === 0 && p95 <= REALTIME_SECONDS;
      console.log(
        `live ${sessions} session(s): ${realtime ? "real time" : "NOT real time"} (${r.missing} sentence(s) never announced, p95 ${p95.toFixed(2)} s vs ${REALTIME_SECONDS} s)`,
      );
      console.log(
        `live ${sessions} session(s): CPU-bound estimate ${Math.floor(cpus().length / r.cpuPerAudioSecond)} sessions on ${cpus().length} cores`,
      );
    }
  } finally {
    await sys.stop();
    await rm(storageRoot, { recursive: true, force: true });
  }
}
