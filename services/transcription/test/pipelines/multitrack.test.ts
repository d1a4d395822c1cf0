// The multitrack workflow end to end on real ffmpeg, pocketsphinx, storage and workflow runner:
// a 3-speaker synthesised meeting whose tracks start at different times.
import { vocabularyShare } from "@scribe/ai";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { transcriptKeys } from "@scribe/contracts";
import { probe, uploadFile } from "@scribe/media";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MeetingFixture } from "@scribe/simulators";
import { HEAVY, pipelineEnv, pipelineInput, type PipelineEnv } from "./support/env";
import { PLATFORM_BUCKET, syncMeeting, uploadTracks, writeSilence } from "./support/meeting";

let env: PipelineEnv;
let fx: MeetingFixture;
beforeAll(async () => {
  env = await pipelineEnv("pl-multitrack");
  fx = await syncMeeting();
  await env.workers();
}, HEAVY);
afterAll(async () => env?.close());

const storedPath = (bucket: string, key: string) => join(env.storageRoot, "storage", bucket, key);

describe("multitrack workflow", () => {
  it(
    "transcribes each track on the meeting's timeline with its participant as speaker, and completes with audio, waveform and summaries",
    async () => {
      const id = "tr-multitrack-1";
      const tracks = await uploadTracks(env, fx, "rec-1");
      const runId = await env.start(
        pipelineInput({
          transcript_id: id,
          kind: "multitrack",
          bucket: PLATFORM_BUCKET,
          tracks,
          meeting_id: "meeting-1",
          // Dave was recorded as a participant but has no track: his name still reaches the summaries' context.
          participants: [
            ...tracks.map((t) => ({ participant_id: t.participant_id, name: t.participant_name!, user_id: null })),
            { participant_id: null, name: "Dave", user_id: null },
          ],
        }),
      );
      const run = await env.finished(runId);
      expect(run.status, JSON.stringify(run.steps.filter((s) => s.status !== "succeeded"))).toBe("succeeded");

      const t = env.port.transcripts.get(id)!;
      expect(t.status).toBe("ended");
      expect(env.port.callsOf("complete").filter((c) => c.applied)).toHaveLength(1);
      expect(env.port.callsOf("fail")).toHaveLength(0);

      // Participants: one per track, speaker = track index, then the recorded participant without a track.
      expect(t.participants.map((p) => [p.name, p.speaker])).toEqual([
        ["Alice", 0],
        ["Bob", 1],
        ["Carol", 2],
        ["Dave", null],
      ]);

      // Words: every word lies inside a turn of its own speaker (the track's participant), on the meeting's timeline.
      const topics = env.port.topics.get(id)!;
      expect(topics.length).toBeGreaterThan(0);
      const words = topics.flatMap((x) => x.words);
      expect(words.length).toBeGreaterThan(fx.truth.words.length * 0.6);
      for (let i = 1; i < words.length; i++) expect(words[i]!.start).toBeGreaterThanOrEqual(words[i - 1]!.start);
      const slack = 0.35;
      let inTurn = 0;
      let right = 0;
      for (const w of words) {
        const mid = (w.start + w.end) / 2;
        const turn = fx.truth.turns.find((x) => mid >= x.start - slack && mid <= x.end + slack);
        if (!turn) continue;
        inTurn++;
        if (turn.speakerIndex === w.speaker) right++;
      }
      expect(inTurn).toBeGreaterThan(words.length * 0.9);
      expect(right).toBe(inTurn);
      // Carol's track (offset read from its WebM container) starts seconds into the meeting.
      const carolOffset = fx.truth.tracks[2]!.offset;
      expect(carolOffset).toBeGreaterThan(3);
      const carolFirst = words.find((w) => w.speaker === 2)!;
      expect(carolFirst.start).toBeGreaterThan(carolOffset - slack);
      expect(carolFirst.start).toBeLessThan(fx.truth.turns.find((x) => x.speaker === "carol")!.end);
      for (const topic of topics) {
        expect(topic.title.length).toBeGreaterThan(0);
        expect(topic.summary.length).toBeGreaterThan(0);
        expect(topic.timestamp).toBe(topic.words[0]!.start);
      }

      // Title, summaries (with the participants' names), action items.
      const said = `${words.map((w) => w.text).join("")} ${t.participants.map((p) => p.name).join(" ")} discussion of`;
      expect(vocabularyShare(t.title ?? "", said), `title ${t.title}`).toBeGreaterThanOrEqual(0.6);
      expect(vocabularyShare(t.short_summary ?? "", said), `short summary ${t.short_summary}`).toBeGreaterThanOrEqual(0.8);
      expect(t.long_summary).toMatch(/# /);
      expect(`${t.short_summary} ${t.long_summary}`).toMatch(/Alice|Bob|Carol/);
      expect(t.action_items).not.toBeNull();
      expect(t.action_items!.decisions.length + t.action_items!.next_steps.length).toBeGreaterThan(0);

      // Duration in ms: the mix is as long as the meeting.
      expect(Number.isFinite(t.duration)).toBe(true);
      expect(Math.abs(t.duration - fx.truth.duration * 1000)).toBeLessThan(1000);

      // The MP3 and waveform where the read side serves them.
      expect(t.audio_location).toBe("storage");
      const mp3 = await probe(storedPath("transcripts", transcriptKeys.mp3(id)));
      expect(mp3.audio?.codec).toBe("mp3");
      expect(Math.abs((mp3.duration ?? 0) - fx.truth.duration)).toBeLessThan(1);
      const waveform = JSON.parse(await readFile(storedPath("transcripts", transcriptKeys.waveform(id)), "utf8")) as unknown[];
      expect(waveform).toHaveLength(255);
      for (const v of waveform) {
        expect(typeof v).toBe("number");
        expect(Number.isFinite(v)).toBe(true);
        expect(v as number).toBeGreaterThanOrEqual(0);
        expect(v as number).toBeLessThanOrEqual(1);
      }
      expect(Math.max(...(waveform as number[]))).toBe(1);

      // Realtime events, in the reference's order.
      const names = env.port.events.get(id)!.map((e) => e.event);
      expect(names[0]).toBe("STATUS");
      expect(names.at(-1)).toBe("STATUS");
      expect(env.port.events.get(id)!.at(-1)!.data).toEqual({ value: "ended" });
      expect(names.filter((n) => n === "TOPIC")).toHaveLength(topics.length);
      expect(env.port.eventsOf(id, "WAVEFORM")).toEqual([{ waveform }]);
      expect(env.port.eventsOf(id, "DURATION")).toEqual([{ duration: t.duration }]);
      expect(env.port.eventsOf(id, "FINAL_TITLE")).toEqual([{ title: t.title }]);
      expect(env.port.eventsOf(id, "TRANSCRIPT")).toEqual([{ text: "", translation: null }]);
      const at = (n: string) => names.indexOf(n as never);
      expect(at("TOPIC")).toBeLessThan(at("FINAL_TITLE"));
      expect(at("FINAL_SHORT_SUMMARY")).toBeLessThan(at("ACTION_ITEMS"));
      expect(at("ACTION_ITEMS")).toBeLessThan(at("FINAL_LONG_SUMMARY"));
      expect(at("WAVEFORM")).toBeLessThan(names.length - 1);

      // Consent was asked and not denied: the tracks are still there.
      expect(t.audio_deleted).toBeNull();
      expect(await env.bucket(PLATFORM_BUCKET).head(tracks[0]!.key)).not.toBeNull();
    },
    HEAVY,
  );

  it(
    "deletes the tracks and the mixed audio when a participant denied consent, and marks the audio deleted",
    async () => {
      const id = "tr-multitrack-consent";
      const tracks = await uploadTracks(env, fx, "rec-2");
      env.consent.set("meeting-denied", true);
      const runId = await env.start(
        pipelineInput({ transcript_id: id, kind: "multitrack", bucket: PLATFORM_BUCKET, tracks, meeting_id: "meeting-denied" }),
      );
      const run = await env.finished(runId);
      expect(run.status).toBe("succeeded");
      const t = env.port.transcripts.get(id)!;
      expect(t.status).toBe("ended");
      expect(t.audio_deleted).toBe(true);
      for (const track of tracks) expect(await env.bucket(PLATFORM_BUCKET).head(track.key)).toBeNull();
      expect(await env.bucket("transcripts").head(transcriptKeys.mp3(id))).toBeNull();
      expect(t.participants.map((p) => p.name)).toEqual(["Alice", "Bob", "Carol"]);
    },
    HEAVY,
  );

  it(
    "fails at once when a track is corrupt, naming the track",
    async () => {
      const tracks = await uploadTracks(env, fx, "rec-3");
      const bad = join(env.storageRoot, "bad.webm");
      await writeFile(bad, Buffer.alloc(4096, 7));
      await uploadFile(env.bucket(PLATFORM_BUCKET), "rec-3/broken.webm", bad);
      const id = "tr-multitrack-corrupt";
      const runId = await env.start(
        pipelineInput({
          transcript_id: id,
          kind: "multitrack",
          bucket: PLATFORM_BUCKET,
          tracks: [tracks[0]!, { ...tracks[1]!, key: "rec-3/broken.webm", start_offset_seconds: null }],
        }),
      );
      const run = await env.finished(runId);
      expect(run.status).toBe("failed");
      const t = env.port.transcripts.get(id)!;
      expect(t.status).toBe("error");
      expect(t.error).toMatch(/^tracks\[1\] failed after 1 attempt\(s\): MediaError: input is corrupt/);
      expect(env.port.callsOf("complete", id)).toHaveLength(0);
    },
    HEAVY,
  );

  it(
    "fails with a clear reason when every track is silent, and never serves the audio as done",
    async () => {
      const silent = await writeSilence(join(env.storageRoot, "silent.wav"), 20);
      const storage = env.bucket(PLATFORM_BUCKET);
      await uploadFile(storage, "rec-4/a.wav", silent);
      await uploadFile(storage, "rec-4/b.wav", silent);
      const track = { start_offset_seconds: 0, participant_id: null, participant_name: null, user_id: null, size: null };
      const id = "tr-multitrack-silent";
      const runId = await env.start(
        pipelineInput({
          transcript_id: id,
          kind: "multitrack",
          bucket: PLATFORM_BUCKET,
          tracks: [
            { ...track, key: "rec-4/a.wav" },
            { ...track, key: "rec-4/b.wav", start_offset_seconds: 2 },
          ],
        }),
      );
      const run = await env.finished(runId);
      expect(run.status).toBe("failed");
      const t = env.port.transcripts.get(id)!;
      expect(t.status).toBe("error");
      expect(t.error).toMatch(/^mixdown failed after 1 attempt\(s\): MediaError: input is silent/);
      expect(await env.bucket("transcripts").head(transcriptKeys.mp3(id))).toBeNull();
      expect(t.participants.map((p) => p.name)).toEqual(["Speaker 0", "Speaker 1"]);
    },
    HEAVY,
  );

  it("refuses a multitrack recording without tracks", async () => {
    const id = "tr-multitrack-empty";
    const run = await env.finished(
      await env.start(pipelineInput({ transcript_id: id, kind: "multitrack", bucket: PLATFORM_BUCKET, tracks: [] })),
    );
    expect(run.status).toBe("failed");
    expect(env.port.transcripts.get(id)!.error).toBe(
      "start failed after 1 attempt(s): NonRetryableError: recording has no audio tracks (transcript tr-multitrack-empty)",
    );
  });
});
