// The Transcript page in a real browser against a stack that processed a real upload (speech
// synthesised by espeak-ng, transcribed by pocketsphinx): the page loads with no console error and no
// failed API call; a click on a word plays the audio from there; a click on the waveform seeks;
// speakers are renamed and merged, the share mode changed, downloads answer with the right types,
// reprocessing shows the new run's live status and its runs, delete goes to the trash and restore
// brings it back; a reader who is not the owner gets the page read-only. Screenshots land in .data/screenshots/.
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "@scribe/kit/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp, launchChromium, SCREENSHOTS, watchedPage } from "./support/browser";
import { speechMp3, uploadWhole } from "./support/media";
import { startSystem, type TestSystem } from "./support/system";

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
const alice = () => sys.client("alice");
const transcript = { params: { path: { transcript_id: "" } } };
const wordsOf = async (): Promise<Word[]> => {
  const { data } = await alice().GET("/v1/transcripts/{transcript_id}/topics/with-words", transcript);
  return (data ?? []).flatMap((t) => t.words);
};

/** A page signed in as `user` (the token the sign-in form would have stored), or anonymous. */
async function open(user: string | null): Promise<{ page: Page; problems: string[] }> {
  const watched = await watchedPage(browser);
  if (user)
    await watched.page.addInitScript(
      (token) => (globalThis as unknown as Storage).localStorage.setItem("scribe.token", token),
      await sys.token(user),
    );
  await watched.page.goto(`${sys.baseUrl}/transcripts/${id}`);
  await watched.page.locator(".word").first().waitFor();
  return watched;
}

const player = (page: Page) => page.locator("audio");
const audioState = (page: Page) => player(page).evaluate((a: Audio) => ({ time: a.currentTime, paused: a.paused, duration: a.duration }));

beforeAll(async () => {
  storageRoot = await mkdtemp(join(tmpdir(), "scribe-webt-"));
  buildWebApp();
  sys = await startSystem({
    label: "webtranscript",
    services: ["rooms", "recordings", "projection", "transcription", "gateway"],
    env: { STORAGE_LOCAL_ROOT: storageRoot },
  });
  browser = await launchChromium(["--autoplay-policy=no-user-gesture-required"]);
  const { data: created } = await alice().POST("/v1/transcripts", { body: { name: "Launch review" } });
  id = created!.id;
  transcript.params.path.transcript_id = id;
  const upload = await uploadWhole(sys.as("alice"), id, speechMp3(SPEECH), "launch.mp3");
  expect(upload.status, await upload.clone().text()).toBe(200);
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
    expect(Number(await waveform.getAttribute("aria-valuenow"))).toBe(Math.floor(time));
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

  it("downloads the audio, the zip and the text formats", async () => {
    const { page, problems } = await open("alice");
    await page.getByText("Download", { exact: true }).click();
    const mp3 = await page.getByRole("link", { name: "Audio (mp3)" }).getAttribute("href");
    const audio = await fetch(`${sys.baseUrl}${mp3}`);
    expect(audio.status).toBe(200);
    expect(audio.headers.get("content-type")).toBe("audio/mpeg");

    const zipResponse = page.waitForResponse((r) => r.url().includes("/download/zip"));
    const zipDownload = page.waitForEvent("download");
    await page.getByRole("link", { name: "Everything (zip)" }).click();
    expect((await zipResponse).status()).toBe(200);
    expect((await zipResponse).headers()["content-type"]).toBe("application/zip");
    const zip = await readFile((await (await zipDownload).path())!);
    expect(zip.subarray(0, 2).toString()).toBe("PK");

    await page.getByText("Download", { exact: true }).click();
    const vttDownload = page.waitForEvent("download");
    await page.getByRole("link", { name: "Subtitles (WebVTT)" }).click();
    const vtt = await vttDownload;
    expect(vtt.suggestedFilename()).toMatch(/\.vtt$/);
    expect(await readFile((await vtt.path())!, "utf8")).toMatch(/^WEBVTT/);

    await page.getByText("Download", { exact: true }).click();
    const textDownload = page.waitForEvent("download");
    await page.getByRole("link", { name: "Text", exact: true }).click();
    const text = await readFile((await (await textDownload).path())!, "utf8");
    expect(text).toMatch(/^(Robert|Speaker \d): /);
    expect(problems).toEqual([]);
    await page.close();
  });

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
    expect(await page.locator("article[data-run-id]").first().locator(".status").textContent()).toBe("running");
    expect(problems).toEqual([]);
    await page.close();
  });
});
