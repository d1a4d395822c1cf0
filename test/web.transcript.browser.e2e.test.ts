// The Transcript page in a real browser against a stack that processed a real upload (speech
// synthesised by espeak-ng, transcribed by pocketsphinx): the page loads with no console error and no
// failed API call; a click on a word plays the audio from there; a click on the waveform seeks;
// speakers are renamed and merged, the share mode changed, every download saves the API's bytes, both
// sockets reconnect after the server drops them,
// reprocessing shows the new run's live status and its runs, delete goes to the trash and restore
// brings it back; a reader who is not the owner gets the page read-only. Screenshots land in .data/screenshots/.
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ok, type operations } from "@scribe/client";
import { eventually } from "@scribe/kit/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp, launchChromium, SCREENSHOTS, watchedPage } from "./support/browser";
import { speechMp3, uploadWhole } from "./support/media";
import { startSystem, type TestSystem } from "./support/system";
import { startTcpProxy } from "./support/tcp-proxy";

const SPEECH =
  "Good morning everyone. Today we review the plan for the product launch. The testing team found several problems " +
  "with the new payment system. We decided to move the launch to March, and Bob will update the documentation.";
// A deadline, not a timing: the machine running the suite may be busy.
const RUN_MS = 300_000;

let sys: TestSystem;
let browser: Browser;
let storageRoot: string;
let id: string;

type Word = { start: number; end: number; speaker: number };
/** What the tests read of the page's <audio> element (the test code has no DOM types). */
type Audio = { currentTime: number; paused: boolean; duration: number };
type Storage = { localStorage: { setItem(key: string, value: string): void } };
type FocusCheck = { document: { activeElement: { matches(selector: string): boolean; getAttribute(name: string): string | null } | null } };
const alice = () => sys.client("alice");
const transcript = { params: { path: { transcript_id: "" } } };
type TranscriptFormat = NonNullable<NonNullable<operations["v1_transcript_get"]["parameters"]["query"]>["transcript_format"]>;
const wordsOf = async (): Promise<Word[]> => {
  const { data } = await alice().GET("/v1/transcripts/{transcript_id}/topics/with-words", transcript);
  return (data ?? []).flatMap((t) => t.words);
};

/** A page signed in as `user` (the token the sign-in form would have stored), or anonymous. */
async function open(user: string | null, origin = sys.baseUrl): Promise<{ page: Page; problems: string[] }> {
  const watched = await watchedPage(await browser.newContext());
  if (user)
    await watched.page.addInitScript(
      (token) => (globalThis as unknown as Storage).localStorage.setItem("scribe.token", token),
      await sys.token(user),
    );
  await watched.page.goto(`${origin}/transcripts/${id}`);
  await watched.page.locator(".word").first().waitFor();
  return watched;
}

/** A zip's files as [name, uncompressed size], read from its central directory. */
function zipEntries(archive: Buffer): [string, number][] {
  const entries: [string, number][] = [];
  for (let at = archive.indexOf("PK\x01\x02", 0, "latin1"); at >= 0; at = archive.indexOf("PK\x01\x02", at + 4, "latin1")) {
    const nameLength = archive.readUInt16LE(at + 28);
    entries.push([archive.toString("utf8", at + 46, at + 46 + nameLength), archive.readUInt32LE(at + 24)]);
  }
  return entries.sort(([a], [b]) => a.localeCompare(b));
}

const player = (page: Page) => page.locator("audio");
const audioState = (page: Page) => player(page).evaluate((a: Audio) => ({ time: a.currentTime, paused: a.paused, duration: a.duration }));

beforeAll(async () => {
  storageRoot = await mkdtemp(join(tmpdir(), "scribe-webt-"));
  buildWebApp();
  sys = await startSystem({
    label: "webtranscript",
    services: ["rooms", "recordings", "projection", "transcription", "search", "gateway"],
    env: { STORAGE_LOCAL_ROOT: storageRoot },
  });
  browser = await launchChromium(["--autoplay-policy=no-user-gesture-required"]);
  const { data: created } = await alice().POST("/v1/transcripts", { body: { name: "Launch review" } });
  id = created!.id;
  transcript.params.path.transcript_id = id;
  await ok(uploadWhole(alice(), id, speechMp3(SPEECH), "launch.mp3"));
  await eventually(
    async () => {
      const { data } = await alice().GET("/v1/transcripts/{transcript_id}", transcript);
      return data?.status === "ended" && (await wordsOf()).length > 10;
    },
    { timeoutMs: RUN_MS, message: "the upload was processed into words" },
  );
  // Two speakers to merge later: the words of the second half become speaker 1's.
  const words = await wordsOf();
  const half = words[Math.floor(words.length / 2)]!.start;
  const { error } = await alice().PATCH("/v1/transcripts/{transcript_id}/speaker/assign", {
    ...transcript,
    body: { speaker: 1, timestamp_from: half, timestamp_to: words.at(-1)!.end },
  });
  expect(error).toBeUndefined();
}, RUN_MS + 60_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
  if (storageRoot) await rm(storageRoot, { recursive: true, force: true });
});

describe("the transcript page", () => {
  it("loads for its owner with words, waveform and controls, on a desktop and a phone", async () => {
    const { page, problems } = await open("alice");
    await page.locator(".waveform").waitFor();
    await page.getByRole("heading", { name: "Transcript" }).waitFor();
    expect(await page.getByLabel("Title").inputValue()).toBe(
      (await alice().GET("/v1/transcripts/{transcript_id}", transcript)).data!.title ?? "",
    );
    expect(await page.getByRole("button", { name: "Delete" }).isVisible()).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, "transcript-page.png"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator(".word").first().waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, "transcript-page-mobile.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("plays from a clicked word and highlights the word being spoken", async () => {
    const { page, problems } = await open("alice");
    const word = page.locator(".word").nth(5);
    const start = Number(await word.getAttribute("data-start"));
    expect(start).toBeGreaterThan(0);
    await word.click();
    await expect.poll(async () => (await audioState(page)).paused).toBe(false);
    const state = await audioState(page);
    expect(state.paused).toBe(false);
    expect(state.time).toBeGreaterThanOrEqual(start - 0.05);
    expect(state.time).toBeLessThan(start + 3);
    // The highlight follows the audio: some word at or after the clicked one is marked as current.
    const current = page.locator(".word[aria-current='true']");
    await current.waitFor();
    expect(Number(await current.getAttribute("data-start"))).toBeGreaterThanOrEqual(start);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("seeks where the waveform is clicked", async () => {
    const { page, problems } = await open("alice");
    const waveform = page.locator(".waveform");
    await expect.poll(async () => Number.isFinite((await audioState(page)).duration)).toBe(true);
    const box = (await waveform.boundingBox())!;
    await waveform.click({ position: { x: box.width * 0.75, y: box.height / 2 } });
    await expect.poll(async () => (await audioState(page)).time).toBeGreaterThan(0);
    const { time, duration } = await audioState(page);
    expect(Math.abs(time - duration * 0.75)).toBeLessThan(duration * 0.05);
    // The waveform follows the player on its next time update (and playback may have moved on since).
    await expect
      .poll(async () => Math.abs(Number(await waveform.getAttribute("aria-valuenow")) - Math.floor((await audioState(page)).time)))
      .toBeLessThanOrEqual(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("works from the keyboard: Tab reaches a word and the waveform, Enter plays, arrows seek, Escape cancels a dialog", async () => {
    const { page, problems } = await open("alice");
    await expect.poll(async () => Number.isFinite((await audioState(page)).duration)).toBe(true);
    /** Presses Tab until the focused element matches `selector` (reachable in the tab order), at most 80 times. */
    async function tabTo(selector: string): Promise<void> {
      for (let presses = 0; presses < 80; presses++) {
        await page.keyboard.press("Tab");
        if (await page.evaluate((s) => (globalThis as unknown as FocusCheck).document.activeElement?.matches(s) ?? false, selector)) return;
      }
      throw new Error(`Tab never reached ${selector}`);
    }

    await tabTo(".waveform");
    await page.keyboard.press("End");
    await expect.poll(async () => (await audioState(page)).time).toBeGreaterThan(1);
    await page.keyboard.press("Home");
    await expect.poll(async () => (await audioState(page)).time).toBe(0);
    await page.keyboard.press("ArrowRight");
    await expect.poll(async () => (await audioState(page)).time).toBe(5);

    await tabTo(".word");
    await page.keyboard.press("Tab");
    const start = Number(
      await page.evaluate(() => (globalThis as unknown as FocusCheck).document.activeElement?.getAttribute("data-start")),
    );
    expect(start).toBeGreaterThan(0);
    await page.keyboard.press("Enter");
    await expect.poll(async () => (await audioState(page)).paused).toBe(false);
    expect((await audioState(page)).time).toBeGreaterThanOrEqual(start - 0.05);
    await player(page).evaluate((a: Audio & { pause(): void }) => a.pause());

    // The delete confirmation is a modal the keyboard can leave: Escape cancels, nothing is deleted.
    await page.getByRole("button", { name: "Delete" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "hidden" });
    expect((await alice().GET("/v1/transcripts/{transcript_id}", transcript)).response.status).toBe(200);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("adds and renames a participant, then merges two speakers (checked through the API)", async () => {
    const { page, problems } = await open("alice");
    await page.getByText("Speakers", { exact: true }).click();
    await page.getByLabel("New participant's name").fill("Bob");
    await page.getByLabel("Their speaker in the recording").selectOption("1");
    await page.getByRole("button", { name: "Add participant" }).click();
    await page.getByLabel("Speaker 1").waitFor();
    await page.getByLabel("Speaker 1").fill("Robert");
    await page.getByLabel("Speaker 1").press("Enter");
    await expect
      .poll(async () =>
        (await alice().GET("/v1/transcripts/{transcript_id}/participants", transcript)).data?.map((p) => [p.speaker, p.name]),
      )
      .toEqual([[1, "Robert"]]);
    await page.locator(".segment .speaker", { hasText: "Robert" }).first().waitFor();

    expect(new Set((await wordsOf()).map((w) => w.speaker))).toEqual(new Set([0, 1]));
    await page.getByLabel("Move the words of").selectOption("1");
    await page.getByLabel("to", { exact: true }).selectOption("0");
    await page.getByRole("button", { name: "Merge", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Merge" }).click();
    await expect.poll(async () => new Set((await wordsOf()).map((w) => w.speaker))).toEqual(new Set([0]));
    await expect.poll(() => page.locator(".segment .speaker", { hasText: "Robert" }).count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("changes who can read it", async () => {
    const { page, problems } = await open("alice");
    await page.getByLabel("Who can read it").selectOption("semi-private");
    await expect.poll(async () => (await alice().GET("/v1/transcripts/{transcript_id}", transcript)).data?.share_mode).toBe("semi-private");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a reader who is not the owner the page read-only", async () => {
    await alice().PATCH("/v1/transcripts/{transcript_id}", { ...transcript, body: { share_mode: "semi-private" } });
    const { page, problems } = await open("bob");
    await page.locator(".waveform").waitFor();
    await page.locator("h1").waitFor();
    expect(await page.getByLabel("Title").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Delete" }).count()).toBe(0);
    expect(await page.getByText("Processing runs").count()).toBe(0);
    await page.getByText("Speakers", { exact: true }).click();
    expect(await page.getByRole("button", { name: "Add participant" }).count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, "transcript-page-readonly.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();

    // Anonymous, on a public transcript: the words, without the signed-in-only audio and waveform.
    await alice().PATCH("/v1/transcripts/{transcript_id}", { ...transcript, body: { share_mode: "public" } });
    const anonymous = await open(null);
    expect(await anonymous.page.locator("audio").count()).toBe(0);
    expect(await anonymous.page.getByRole("button", { name: "Delete" }).count()).toBe(0);
    expect(anonymous.problems).toEqual([]);
    await anonymous.page.close();
  });

  it("downloads the audio, the zip and every text format when signed in, each with the API's bytes", async () => {
    const { page, problems } = await open("alice");
    /** Clicks a download in the menu and answers the file the browser saved. */
    async function download(name: string): Promise<{ file: Buffer; name: string }> {
      await page.getByText("Download", { exact: true }).click();
      const saved = page.waitForEvent("download");
      await page.getByRole("link", { name, exact: true }).click();
      const d = await saved;
      return { file: await readFile((await d.path())!), name: d.suggestedFilename() };
    }
    const bytesOf = async (pending: Promise<{ data?: ArrayBuffer; error?: unknown; response: Response }>) => Buffer.from(await ok(pending));

    const mp3 = await download("Audio (mp3)");
    expect(mp3.name).toMatch(/\.mp3$/);
    expect(
      mp3.file.equals(await bytesOf(alice().GET("/v1/transcripts/{transcript_id}/audio/mp3", { ...transcript, parseAs: "arrayBuffer" }))),
    ).toBe(true);

    const zip = await download("Everything (zip)");
    expect(zip.name).toMatch(/\.zip$/);
    expect(zip.file.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    // Made afresh per request (entry times differ), so compare what it holds: the same files of the same sizes.
    expect(zipEntries(zip.file).length).toBeGreaterThan(0);
    const fromApi = await bytesOf(alice().GET("/v1/transcripts/{transcript_id}/download/zip", { ...transcript, parseAs: "arrayBuffer" }));
    expect(zipEntries(zip.file)).toEqual(zipEntries(fromApi));

    const formats: [string, TranscriptFormat, string][] = [
      ["Text", "text", "txt"],
      ["Text with timestamps", "text-timestamped", "txt"],
      ["Subtitles (WebVTT)", "webvtt-named", "vtt"],
      ["Segments (JSON)", "json", "json"],
    ];
    for (const [label, format, extension] of formats) {
      const saved = await download(label);
      expect(saved.name, label).toMatch(new RegExp(`\\.${extension}$`));
      const read = await ok(
        alice().GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: id }, query: { transcript_format: format } } }),
      );
      const expected = typeof read.transcript === "string" ? read.transcript : JSON.stringify(read.transcript, null, 2);
      expect(saved.file.toString("utf8"), label).toBe(expected);
    }
    expect((await download("Subtitles (WebVTT)")).file.toString()).toMatch(/^WEBVTT/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it(
    "keeps both sockets: after the server drops them the pages reconnect and follow a reprocessing",
    async () => {
      const proxy = await startTcpProxy({ host: "127.0.0.1", port: Number(new URL(sys.baseUrl).port) });
      const transcriptSocket = `/v1/transcripts/${id}/events`;
      try {
        const { page, problems } = await open("alice", proxy.url);
        const list = await watchedPage(page.context());
        await list.page.goto(`${proxy.url}/transcripts`);
        const item = list.page.locator(`article[data-transcript-id="${id}"] .status`);
        expect(await item.getAttribute("data-status")).toBe("ended");
        await expect.poll(() => [proxy.upgrades(transcriptSocket), proxy.upgrades("/v1/events")]).toEqual([1, 1]);

        proxy.dropAll();
        // Both come back on their own (the pause grows from half a second).
        await expect.poll(() => [proxy.upgrades(transcriptSocket), proxy.upgrades("/v1/events")], { timeout: 30_000 }).toEqual([2, 2]);
        await page.locator(".word").first().waitFor();

        const { error } = await alice().POST("/v1/transcripts/{transcript_id}/process", transcript);
        expect(error).toBeUndefined();
        // Only the sockets tell these pages that a run started, and later that it ended.
        await page.locator("article.transcript > header .status[data-status='processing']").waitFor({ timeout: RUN_MS });
        await list.page.locator(`article[data-transcript-id="${id}"] .status[data-status='processing']`).waitFor({ timeout: RUN_MS });
        await page.locator("article.transcript > header .status[data-status='ended']").waitFor({ timeout: RUN_MS });
        await list.page.locator(`article[data-transcript-id="${id}"] .status[data-status='ended']`).waitFor({ timeout: RUN_MS });
        expect(problems).toEqual([]);
        expect(list.problems).toEqual([]);
        await list.page.close();
        await page.close();
      } finally {
        await proxy.close();
      }
    },
    3 * RUN_MS,
  );

  it("deletes to the trash after a confirmation, and restores", async () => {
    const { page, problems } = await open("alice");
    await page.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
    expect((await alice().GET("/v1/transcripts/{transcript_id}", transcript)).response.status).toBe(200);

    await page.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await page.getByText("This transcript is in the trash.").waitFor();
    expect((await alice().GET("/v1/transcripts/{transcript_id}", transcript)).response.status).toBe(404);
    await page.getByRole("button", { name: "Restore" }).click();
    await page.locator(".word").first().waitFor();
    expect((await alice().GET("/v1/transcripts/{transcript_id}", transcript)).response.status).toBe(200);
    expect(problems).toEqual([]);
    await page.close();
  });
  it("reprocesses after a confirmation, showing the new run's live status and its runs", async () => {
    const before = (await alice().GET("/v1/transcripts/{transcript_id}/runs", transcript)).data!.runs.length;
    const { page, problems } = await open("alice");
    await page.getByRole("button", { name: "Reprocess" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Reprocess" }).click();
    await page.getByText("Reprocessing started.").waitFor();
    expect((await alice().GET("/v1/transcripts/{transcript_id}/runs", transcript)).data!.runs.length).toBe(before + 1);
    // The badge changes only through the socket's STATUS events (the page sets no status itself).
    await page.locator(".status[data-status='processing']").waitFor();
    await page.getByRole("status").filter({ hasText: "Processing (processing)" }).waitFor();
    await page.getByText("Processing runs").click();
    await expect.poll(() => page.locator("article[data-run-id]").count()).toBe(before + 1);
    // The newest run first: still running, or already done when the machine processed it quickly.
    expect(await page.locator("article[data-run-id]").first().locator(".status").textContent()).toMatch(/^(running|succeeded)$/);
    expect(problems).toEqual([]);
    await page.close();
  });
});
