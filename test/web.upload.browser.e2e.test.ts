// The web app's Upload and Live recording pages in a real browser, signed in through the identity
// provider (AUTH_BACKEND=jwt, the simulator): a synthesised meeting is uploaded with a progress bar,
// the page shows its processing status as it changes and opens the finished transcript with the
// spoken words, where a click on a word plays it, a speaker is named and a spoken word finds it in
// the list (issue 17's journey); a file without audio is refused with the API's message.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vocabularyShare } from "@scribe/ai";
import { liveDictation, startIdp, synthesizeMeeting, twoSpeakerStandup, type IdpSimulator } from "@scribe/simulators";
import type { Browser, Page } from "playwright-core";
import { ok } from "@scribe/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onTranscript } from "./support/api";
import { buildWebApp, fakeMicrophoneFlags, launchChromium, SCREENSHOTS, watchedPage } from "./support/browser";
import { uploadWhole } from "./support/media";
import { startSystem, type TestSystem } from "./support/system";
import { signInWithProvider, storedToken } from "./support/web-sign-in";

const PROCESSING_MS = 300_000;

let idp: IdpSimulator;
let sys: TestSystem;
let browser: Browser;
let storageRoot: string;
let meetingWav: string;
let meetingWords: string;

beforeAll(async () => {
  buildWebApp();
  storageRoot = await mkdtemp(join(tmpdir(), "scribe-web-upload-"));
  idp = await startIdp();
  const [meeting, dictation] = await Promise.all([synthesizeMeeting(twoSpeakerStandup), synthesizeMeeting(liveDictation)]);
  meetingWav = meeting.mixPath;
  meetingWords = meeting.truth.words.join(" ");
  sys = await startSystem({
    label: "webupload",
    services: ["rooms", "recordings", "projection", "transcription", "search", "gateway"],
    auth: "jwt",
    idp,
    env: { STORAGE_LOCAL_ROOT: storageRoot, LIVE_RECOVERY_INTERVAL_MS: "0", OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: idp.clientId },
  });
  // One browser for every test: the fake microphone only matters where a page asks for it.
  browser = await launchChromium(fakeMicrophoneFlags(dictation.mixPath));
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await sys?.stop();
  await idp?.close();
  await rm(storageRoot, { recursive: true, force: true });
}, 60_000);

async function screenshots(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-mobile.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}

/**
 * What the page shows as it changes, recorded in the page itself (the app navigates without reloads,
 * so the record survives; a reload loses it): "uploading" while the upload progress bar is there,
 * then every status the badge (`badge`) shows, in order.
 */
async function recordStatuses(page: Page, badge = "[data-status]"): Promise<void> {
  await page.evaluate((badge) => {
    const g = globalThis as unknown as {
      seenStatuses: string[];
      document: { querySelector(s: string): { getAttribute(a: string): string | null } | null; body: unknown };
      MutationObserver: new (cb: () => void) => { observe(target: unknown, opts: Record<string, boolean>): void };
    };
    g.seenStatuses = [];
    const note = () => {
      const value = g.document.querySelector("progress[aria-label='Upload progress']")
        ? "uploading"
        : g.document.querySelector(badge)?.getAttribute("data-status");
      if (value && g.seenStatuses[g.seenStatuses.length - 1] !== value) g.seenStatuses.push(value);
    };
    new g.MutationObserver(note).observe(g.document.body, { subtree: true, childList: true, attributes: true });
    note();
  }, badge);
}
const seenStatuses = (page: Page) => page.evaluate(() => (globalThis as unknown as { seenStatuses: string[] }).seenStatuses);

describe("Upload", () => {
  it(
    "uploads a meeting with progress, shows its processing live and opens the transcript with the spoken words",
    async () => {
      const { page, problems } = await watchedPage(browser);
      await signInWithProvider(page, sys.baseUrl);
      await page.getByRole("link", { name: "Upload" }).click();
      await page.getByLabel("Audio or video file").waitFor();
      await screenshots(page, "upload");

      await page.getByLabel("Audio or video file").setInputFiles(meetingWav);
      await page.getByLabel("Name").fill("Launch stand-up");
      await recordStatuses(page);
      await page.getByRole("button", { name: "Upload" }).click();
      await page.waitForURL(/\/transcripts\/[^/]+$/, { timeout: PROCESSING_MS });
      const id = new URL(page.url()).pathname.split("/").pop()!;
      // Everything up to here was the sign-in, list and upload pages (the transcript page has its own tests).
      expect(problems).toEqual([]);
      // The page showed the upload's progress, then the processing status as it changed, up to done.
      const seen = await seenStatuses(page);
      expect(seen[0]).toBe("uploading");
      expect(seen).toContain("processing");
      expect(seen.indexOf("ended")).toBeGreaterThan(seen.indexOf("processing"));
      // The transcript page shows what was said.
      const main = page.locator("main");
      await expect
        .poll(async () => vocabularyShare(meetingWords, (await main.textContent()) ?? ""), { timeout: 60_000 })
        .toBeGreaterThanOrEqual(0.5);
      // The API as the signed-in app user, with the token the app stored.
      const api = sys.clientWith({ token: (await storedToken(page))! });
      const t = await ok(api.GET("/v1/transcripts/{transcript_id}", onTranscript(id)));
      expect(t).toMatchObject({ status: "ended", name: "Launch stand-up", source_kind: "file" });

      // The rest of the journey: a click on a word plays the recording from there…
      const word = page.locator(".word").nth(8);
      const start = Number(await word.getAttribute("data-start"));
      await word.click();
      const audio = () =>
        page.locator("audio").evaluate((a: { currentTime: number; paused: boolean }) => ({ time: a.currentTime, paused: a.paused }));
      await expect.poll(async () => (await audio()).paused).toBe(false);
      expect((await audio()).time).toBeGreaterThanOrEqual(start - 0.05);
      expect((await audio()).time).toBeLessThan(start + 3);
      await page.locator("audio").evaluate((a: { pause(): void }) => a.pause());
      // …a speaker gets a name…
      await page.getByText("Speakers", { exact: true }).click();
      await page.getByLabel("New participant's name").fill("Alice");
      await page.getByLabel("Their speaker in the recording").selectOption("0");
      await page.getByRole("button", { name: "Add participant" }).click();
      await expect
        .poll(async () => (await ok(api.GET("/v1/transcripts/{transcript_id}/participants", onTranscript(id)))).map((p) => p.name))
        .toContain("Alice");
      // …and a word that was spoken finds the transcript in the list, highlighted.
      const words = (await page.locator(".word").allTextContents()).map((w) => w.trim().replace(/[^\p{L}\p{N}]/gu, ""));
      const spoken = words.find((w) => w.length >= 6)!; // not a stop word ("the"), which full-text search ignores
      // The search index follows the transcript's events: it has the words once the API finds them there.
      await expect
        .poll(
          async () => (await ok(api.GET("/v1/transcripts/search", { params: { query: { q: spoken } } }))).results.some((r) => r.id === id),
          { timeout: 60_000 },
        )
        .toBe(true);
      await page.getByRole("link", { name: "Transcripts" }).click();
      await page.getByLabel("Search transcripts").fill(spoken);
      await page.getByRole("button", { name: "Search" }).click();
      const found = page.locator(`article[data-transcript-id="${id}"]`);
      await found.waitFor({ timeout: 60_000 });
      expect((await found.locator("mark").first().textContent())?.toLowerCase()).toBe(spoken.toLowerCase());
      await screenshots(page, "journey-search");
      expect(problems).toEqual([]);
      await page.close();
    },
    PROCESSING_MS + 120_000,
  );

  it(
    "the list shows a processing transcript's status as the pipeline moves it on, without a reload",
    async () => {
      const { page, problems } = await watchedPage(browser);
      await signInWithProvider(page, sys.baseUrl);
      const user = sys.clientWith({ token: (await storedToken(page))! });
      const { id } = await ok(user.POST("/v1/transcripts", { body: { name: "Live in the list" } }));
      const item = page.locator(`article[data-transcript-id="${id}"]`);
      // The list reads the search index, which learns of the new transcript from its events.
      await expect.poll(async () => (await page.reload(), await item.count()), { timeout: 60_000 }).toBe(1);
      expect(await item.locator("[data-status]").getAttribute("data-status")).toBe("idle");
      // Every status the item's badge shows from now on, recorded in the page (a reload would lose the record).
      await recordStatuses(page, `article[data-transcript-id="${id}"] [data-status]`);
      await ok(uploadWhole(user, id, await readFile(meetingWav), "meeting.wav", "audio/wav"));
      await item.locator("[data-status='ended']").waitFor({ timeout: PROCESSING_MS });
      const seen = await seenStatuses(page);
      // Still the page the record was started on; it went from idle through processing to ended.
      expect(seen, "the page was reloaded (its record is gone)").toBeDefined();
      expect(seen[0]).toBe("idle");
      expect(seen).toContain("processing");
      expect(seen.at(-1)).toBe("ended");
      await screenshots(page, "transcripts-live-status");
      expect(problems).toEqual([]);
      await page.close();
    },
    PROCESSING_MS + 120_000,
  );

  it("refuses a file without audio with the API's message", async () => {
    const { page } = await watchedPage(browser);
    await signInWithProvider(page, sys.baseUrl);
    const notes = join(storageRoot, "notes.txt");
    await writeFile(notes, "these are meeting notes, not a recording\n".repeat(50));
    await page.goto(`${sys.baseUrl}/upload`);
    await page.getByLabel("Audio or video file").setInputFiles(notes);
    await page.getByRole("button", { name: "Upload" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor({ timeout: 60_000 });
    // The API's own sentence, not a generic failure.
    expect(await alert.textContent()).toMatch(/^(Unsupported file format|File has no audio stream)/);
    await page.close();
  }, 120_000);
});
