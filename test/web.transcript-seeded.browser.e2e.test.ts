// The transcript page on transcripts written straight into the read model (no pipeline, so every
// field is known), in a real browser: what the page shows (title, both summaries, action items,
// each topic with its words under their speakers' names), and the recording's address without the
// user's own token (issue 17): the page plays and downloads the mp3 on a short-lived media token
// (POST /v1/transcripts/{id}/audio/token) that opens that one transcript's audio and nothing else,
// and expires; the user's bearer token never appears in a URL the page asks for. Tokens here live
// MEDIA_TOKEN_TTL_SECONDS=5 s, so the test sees them expire: the API refuses them then, and the
// page's player gets a fresh one and plays on.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ok } from "@scribe/client";
import { transcriptKeys, type Word } from "@scribe/contracts";
import { eventually } from "@scribe/kit/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp, launchChromium, SCREENSHOTS, watchedPage } from "./support/browser";
import { onTranscript } from "./support/api";
import { startSystem, type TestSystem } from "./support/system";
import { topicRecord, TranscriptWriter } from "./support/transcripts";

const TTL_SECONDS = 5;
const LENGTH_MINUTES = 120;
/** A word near the end of the recording, far past what the browser loads ahead. */
const LATE_WORD_SECONDS = 110 * 60;
/** What the tests read of the page's <audio> element (the test code has no DOM types). */
type Audio = { currentTime: number; paused: boolean; readyState: number; seeking: boolean; src: string };
type Storage = { localStorage: { setItem(key: string, value: string): void } };

let sys: TestSystem;
let browser: Browser;
let tw: TranscriptWriter;
let storageRoot: string;
/** Alice's transcript with words and audio, and another of hers with audio. */
let id: string;
let otherId: string;
let mp3: Buffer;

const mp3Path = (transcript: string) => `/v1/transcripts/${transcript}/audio/mp3`;
const mediaToken = (user: string | null, transcript = id) =>
  sys.client(user).POST("/v1/transcripts/{transcript_id}/audio/token", onTranscript(transcript));
/** The transcript's mp3 asked for with `?token=` and no other credential, as a player's address does. */
const audioWithToken = (transcript: string, token: string) =>
  sys.client(null).GET("/v1/transcripts/{transcript_id}/audio/mp3", {
    params: { path: { transcript_id: transcript }, query: { token } },
    parseAs: "arrayBuffer",
  });
/** Raw: an address the page's player or download link holds, requested as it is. */
const anonymous = (path: string) => fetch(`${sys.baseUrl}${path}`);

/**
 * Two hours of silent constant-bitrate mp3 (14 MB), made of one encoded minute repeated: long enough
 * that the browser holds only part of it and asks the server again when playback jumps far ahead.
 */
function longSilence(): Buffer {
  const minute = join(storageRoot, "minute.mp3");
  // No Xing header or ID3 tag: the frames alone, which follow each other like one long stream.
  const encode = ["-v", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "60", "-c:a", "libmp3lame", "-b:a", "16k"];
  execFileSync("ffmpeg", [...encode, "-write_xing", "0", "-id3v2_version", "0", minute]);
  return Buffer.concat(Array.from({ length: LENGTH_MINUTES }, () => readFileSync(minute)));
}

const ACTION_ITEMS = {
  decisions: [{ decision: "Ship the payment work first", rationale: null, decided_by: "Ada", decided_by_participant_id: null }],
  next_steps: [
    { task: "Update the documentation", assigned_to: "Bob", assigned_to_participant_id: null, deadline: "Friday", context: null },
  ],
};

/** The loudness the pipeline measured for the seeded transcripts (three bars). */
const WAVEFORM = [0.2, 0.5, 0.1];

/**
 * A transcript of alice's as the transcription service leaves it, with `mp3` stored and readable, and
 * `waveform` (null: none, as for audio no pipeline ever measured) stored and on its event log.
 */
async function transcriptWithAudio(words: Word[], waveform: number[] | null = WAVEFORM): Promise<string> {
  const t = await tw.create({
    user_id: "alice",
    title: "Audio check",
    short_summary: "The team agreed on the order of the work.",
    long_summary: "A longer account: payments first, then the mobile release, and the documentation by Friday.",
    action_items: ACTION_ITEMS,
    participants: [{ id: "p-ada", speaker: 0, name: "Ada", user_id: null }],
    duration: LENGTH_MINUTES * 60_000,
    status: "ended",
  });
  // Two topics: the first minute's words (Ada, then speaker 1), and the rest.
  const topics = [words.filter((w) => w.start < 60), words.filter((w) => w.start >= 60)].filter((part) => part.length > 0);
  for (const [position, part] of topics.entries())
    await tw.upsertTopic(
      t.id,
      position,
      topicRecord(part, { title: position === 0 ? "Payments" : "Later on", summary: `Topic ${position + 1}` }),
    );
  await tw.applied(t.id);
  mkdirSync(join(storageRoot, "scribe-transcripts", t.id), { recursive: true });
  writeFileSync(join(storageRoot, "scribe-transcripts", transcriptKeys.mp3(t.id)), mp3);
  if (waveform) {
    writeFileSync(join(storageRoot, "scribe-transcripts", transcriptKeys.waveform(t.id)), JSON.stringify(waveform));
    await tw.appendEvent(t.id, "WAVEFORM", { waveform });
  }
  // The recordings service (which decides media access) learns of it from the same event.
  await eventually(
    async () =>
      (await sys.client("alice").GET("/v1/transcripts/{transcript_id}/audio/mp3", { ...onTranscript(t.id), parseAs: "arrayBuffer" }))
        .response.status === 200,
    {
      message: "the recordings service has the transcript",
    },
  );
  return t.id;
}

beforeAll(async () => {
  buildWebApp();
  storageRoot = mkdtempSync(join(tmpdir(), "scribe-webaudio-"));
  mp3 = longSilence();
  sys = await startSystem({
    label: "webaudiotoken",
    services: ["recordings", "projection", "gateway"],
    env: { STORAGE_LOCAL_ROOT: storageRoot, MEDIA_TOKEN_TTL_SECONDS: String(TTL_SECONDS) },
  });
  tw = await TranscriptWriter.connect(sys.prefix);
  const words = [...Array.from({ length: 40 }, (_, i) => i * 1.25), LATE_WORD_SECONDS].map((start, i) => ({
    text: ` word${i}`,
    start,
    end: start + 1,
    speaker: i < 20 ? 0 : 1,
  }));
  id = await transcriptWithAudio(words);
  otherId = await transcriptWithAudio([]);
  browser = await launchChromium(["--autoplay-policy=no-user-gesture-required"]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await tw?.close();
  await sys?.stop();
  if (storageRoot) rmSync(storageRoot, { recursive: true, force: true });
});

describe("what the transcript page shows", () => {
  it("the title, both summaries, the action items, and each topic with its words under their speakers' names", async () => {
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context);
    await page.addInitScript((t) => (globalThis as unknown as Storage).localStorage.setItem("scribe.token", t), await sys.token("alice"));
    await page.goto(`${sys.baseUrl}/transcripts/${id}`);
    await page.locator(".word").first().waitFor();
    expect(await page.getByLabel("Title").inputValue()).toBe("Audio check");
    await page.getByText("The team agreed on the order of the work.").waitFor();
    // The long summary is folded away until asked for.
    const long = page.getByText("A longer account: payments first", { exact: false });
    expect(await long.isVisible()).toBe(false);
    await page.getByText("Long summary").click();
    expect(await long.isVisible()).toBe(true);
    const actions = page.locator("section.action-items");
    expect(await actions.getByRole("listitem").allTextContents()).toEqual([
      "Update the documentation — Bob (by Friday)",
      "Ship the payment work first — Ada",
    ]);
    // Topics as headings in order, each followed by its words; turns under their speaker's name (or number).
    await page.getByRole("heading", { name: "Payments" }).waitFor();
    expect(await page.locator(".word-rows .topic h3").first().textContent()).toMatch(/^Payments/);
    const turns = page.locator(".word-rows .segment");
    expect(await turns.nth(0).locator(".speaker").textContent()).toBe("Ada");
    expect(await turns.nth(0).locator(".word").first().textContent()).toBe(" word0");
    expect(await turns.nth(1).locator(".speaker").textContent()).toBe("Speaker 1");
    expect(await turns.nth(1).locator(".word").first().textContent()).toBe(" word20");
    await page.locator(".word-scroller").evaluate((e: { scrollTop: number; scrollHeight: number }) => (e.scrollTop = e.scrollHeight));
    await page.getByRole("heading", { name: "Later on" }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, "transcript-page-seeded.png"), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe("the waveform", () => {
  it("comes from the transcript socket's WAVEFORM event; a transcript without one opens with no 404 and no console error", async () => {
    const context = await browser.newContext();
    await context.addInitScript(
      (t) => (globalThis as unknown as Storage).localStorage.setItem("scribe.token", t),
      await sys.token("alice"),
    );
    const { page, problems } = await watchedPage(context);
    const urls: string[] = [];
    page.on("request", (r) => urls.push(new URL(r.url()).pathname));

    await page.goto(`${sys.baseUrl}/transcripts/${id}`);
    const bars = page.locator(".waveform path.waveform-bars");
    await bars.waitFor();
    // One bar per value of the event's waveform.
    expect((await bars.getAttribute("d"))?.match(/M/g)).toHaveLength(WAVEFORM.length);

    const without = await transcriptWithAudio([{ text: " alone", start: 1, end: 2, speaker: 0 }], null);
    await page.goto(`${sys.baseUrl}/transcripts/${without}`);
    await page.locator(".word").first().waitFor();
    await page.locator("audio").waitFor({ state: "attached" });
    await page.waitForLoadState("networkidle");
    expect(await page.locator(".waveform").count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, "transcript-page-no-waveform.png"), fullPage: true });

    expect(urls.filter((u) => u.endsWith("/audio/waveform"))).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe("media tokens for the recording's address", () => {
  it("open this transcript's audio for the caller who asked, nothing else, and only until they expire", async () => {
    const { token, expires_in } = await ok(mediaToken("alice"));
    expect(expires_in).toBe(TTL_SECONDS);
    expect(token).not.toBe(await sys.token("alice"));

    const heard = await ok(audioWithToken(id, token));
    expect(Buffer.from(heard).equals(mp3)).toBe(true);
    // Another transcript's audio, even the same user's; the API itself (it is no session).
    expect((await audioWithToken(otherId, token)).response.status).toBe(401);
    const asSession = sys.clientWith({ token });
    expect((await asSession.GET("/v1/me")).response.status).toBe(401);
    expect((await asSession.GET("/v1/transcripts/{transcript_id}", onTranscript(id))).response.status).toBe(401);
    // It carries the identity of who asked: someone who may not read the transcript hears nothing.
    const bobs = (await ok(mediaToken("bob"))).token;
    expect((await audioWithToken(id, bobs)).response.status).toBe(403);
    // Only signed-in callers get one.
    expect((await mediaToken(null)).response.status).toBe(401);

    await eventually(async () => (await audioWithToken(id, token)).response.status === 401, {
      timeoutMs: (TTL_SECONDS + 30) * 1000,
      message: "the media token expires",
    });
  });

  it("are what the page plays and downloads: the user's own token is in no URL, and an expired one is replaced", async () => {
    const bearer = await sys.token("alice");
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context);
    const urls: string[] = [];
    page.on("request", (r) => urls.push(r.url()));
    await page.addInitScript((t) => (globalThis as unknown as Storage).localStorage.setItem("scribe.token", t), bearer);
    await page.goto(`${sys.baseUrl}/transcripts/${id}`);

    const audio = page.locator("audio");
    const state = () => audio.evaluate((a: Audio) => ({ time: a.currentTime, ready: a.readyState, seeking: a.seeking, src: a.src }));
    /** Clicks the word starting at `start` seconds and waits until the player has loaded and moved there. */
    async function playWord(page: Page, start: number) {
      await page.locator(`.word[data-start="${start}"]`).click();
      await eventually(async () => {
        const s = await state();
        expect(s.ready).toBeGreaterThanOrEqual(1);
        expect(s.seeking).toBe(false);
        expect(s.time).toBeGreaterThanOrEqual(start);
        expect(s.time).toBeLessThan(start + 2);
        return true;
      });
    }
    await playWord(page, 12.5);
    const first = new URL((await state()).src);
    expect(first.pathname).toBe(mp3Path(id));
    expect(first.searchParams.get("token")).not.toBe(bearer);
    // The player's address is a working media token for this recording: it answers the API's mp3 bytes on its own.
    const byPlayerAddress = await anonymous(`${first.pathname}${first.search}`);
    expect(byPlayerAddress.status).toBe(200);
    expect(Buffer.from(await byPlayerAddress.arrayBuffer()).equals(mp3)).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, "transcript-page-audio.png"), fullPage: true });

    // The download is saved from a fresh media-token address too, with the API's bytes.
    await page.getByText("Download", { exact: true }).click();
    const saved = page.waitForEvent("download");
    await page.getByRole("link", { name: "Audio (mp3)", exact: true }).click();
    const download = await saved;
    expect(new URL(download.url()).pathname).toBe(mp3Path(id));
    expect(new URL(download.url()).searchParams.get("token")).not.toBe(bearer);
    expect((await readFile((await download.path())!)).equals(mp3)).toBe(true);

    // The token the player holds expires; a jump to a late word makes the browser ask the server for
    // that part of the recording, which is refused, and the player carries on there with a fresh token.
    await eventually(async () => (await anonymous(`${first.pathname}${first.search}`)).status === 401, {
      timeoutMs: (TTL_SECONDS + 30) * 1000,
      message: "the player's media token expires",
    });
    await playWord(page, LATE_WORD_SECONDS);
    expect((await state()).src).not.toBe(first.href);
    expect(await audio.evaluate((a: Audio) => a.paused)).toBe(false);

    expect(urls.filter((u) => u.includes(bearer))).toEqual([]);
    // The expired address was refused once (that is the point); nothing else failed.
    const refusal = (p: string) =>
      p.includes(`${mp3Path(id)}?token=`) ||
      p === "console: Failed to load resource: the server responded with a status of 401 (Unauthorized)";
    expect(problems.filter((p) => !refusal(p))).toEqual([]);
    expect(problems.length).toBeGreaterThan(0);
    await context.close();
  });
});
