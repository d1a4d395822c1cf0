// Live recording from a real browser: headless Chromium (Debian's `chromium`, driven by
// playwright-core) with a fake microphone playing synthesised speech opens a minimal page that
// calls getUserMedia, offers an RTCPeerConnection with a data channel to
// POST /v1/transcripts/{id}/record/webrtc and applies the answer. The spoken words arrive on the
// transcript socket while it records; STOP on the data channel ends the transcript. Then the same
// through the app's own Record page: the words appear while it records, Stop leads to the finished
// transcript's page showing what was said.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vocabularyShare } from "@scribe/ai";
import { ok, type ScribeClient } from "@scribe/client";
import { eventually } from "@scribe/kit/testing";
import { liveDictation, synthesizeMeeting } from "@scribe/simulators";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp, fakeMicrophoneFlags, launchChromium, SCREENSHOTS, watchedPage } from "./support/browser";
import { startSystem, type TestSystem } from "./support/system";
import { mustOpen, type OpenSocket, type WsMessage } from "./support/websocket";

const RUN_MS = 240_000;

// The page a web app would have, reduced to the calls that matter.
const PAGE = `<!doctype html><meta charset="utf-8"><title>Scribe live</title>
<script>
window.record = async (endpoint, token) => {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  const pc = new RTCPeerConnection();
  for (const track of stream.getAudioTracks()) pc.addTrack(track, stream);
  const channel = pc.createDataChannel("control");
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise((done) => {
    if (pc.iceGatheringState === "complete") return done();
    pc.addEventListener("icegatheringstatechange", () => pc.iceGatheringState === "complete" && done());
  });
  // Raw: this runs in the page, as a browser app without the typed client would post its offer.
  const res = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer " + token },
    body: JSON.stringify({ sdp: pc.localDescription.sdp, type: pc.localDescription.type }),
  });
  if (!res.ok) throw new Error("offer refused: " + res.status + " " + (await res.text()));
  await pc.setRemoteDescription(await res.json());
  await new Promise((done) => (channel.readyState === "open" ? done() : (channel.onopen = () => done())));
  window.stopRecording = () => channel.send(JSON.stringify({ cmd: "STOP" }));
  return pc.connectionState;
};
</script>`;

let sys: TestSystem;
let alice: ScribeClient;
let token: string;
let storageRoot: string;
let pageServer: Server;
let pageUrl: string;
let browser: Browser;
let said: string;

beforeAll(async () => {
  buildWebApp();
  storageRoot = await mkdtemp(join(tmpdir(), "scribe-live-browser-"));
  sys = await startSystem({
    label: "livebrowser",
    services: ["rooms", "recordings", "projection", "transcription", "gateway"],
    env: { STORAGE_LOCAL_ROOT: storageRoot, LIVE_RECOVERY_INTERVAL_MS: "0" },
  });
  alice = sys.client("alice");
  token = await sys.token("alice");
  const fixture = await synthesizeMeeting(liveDictation);
  said = fixture.truth.words.join(" ");
  pageServer = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(PAGE));
  await new Promise<void>((r) => pageServer.listen(0, "127.0.0.1", r));
  pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`;
  browser = await launchChromium(fakeMicrophoneFlags(fixture.mixPath));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => pageServer?.close(r));
  await sys?.stop();
  await rm(storageRoot, { recursive: true, force: true });
});

/** The transcript as plain text, as alice reads it. */
const readText = (id: string) =>
  ok(alice.GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: id }, query: { transcript_format: "text" } } }));
const status = (value: string) => (m: WsMessage) => m.event === "STATUS" && m.data.value === value;
const lines = (ms: WsMessage[]) => ms.filter((m) => m.event === "TRANSCRIPT").map((m) => m.data.text as string);

describe("a live recording from headless Chromium", () => {
  let id: string;
  let socket: OpenSocket;
  let whileRecording: WsMessage[];

  beforeAll(
    async () => {
      id = (await ok(alice.POST("/v1/transcripts", { body: { name: "Browser recording" } }))).id;
      socket = await mustOpen(sys.baseUrl, `/v1/transcripts/${id}/events`, ["bearer", token]);
      const page = await browser.newPage();
      await page.goto(pageUrl);
      const state = await page.evaluate(
        ([endpoint, bearer]) => (globalThis as unknown as { record(e: string, t: string): Promise<string> }).record(endpoint!, bearer!),
        [`${sys.baseUrl}/v1/transcripts/${id}/record/webrtc`, token],
      );
      expect(["connecting", "connected"]).toContain(state);
      // The fake microphone loops the file: record until several sentences were announced.
      await eventually(() => lines(socket.messages).length >= 4, { timeoutMs: RUN_MS, message: "four TRANSCRIPT lines while recording" });
      whileRecording = [...socket.messages];
      await page.evaluate(() => (globalThis as unknown as { stopRecording(): void }).stopRecording());
      await eventually(() => socket.messages.some(status("ended")), { timeoutMs: RUN_MS, message: "STATUS ended" });
      await page.close();
    },
    2 * RUN_MS + 30_000,
  );
  afterAll(() => socket?.close());

  it("shows the words on the transcript socket while the browser records", () => {
    expect(whileRecording[0]).toEqual({ event: "STATUS", data: { value: "recording" } });
    expect(whileRecording.some(status("processing"))).toBe(false);
    expect(vocabularyShare(lines(whileRecording).join(" "), said), lines(whileRecording).join(" | ")).toBeGreaterThanOrEqual(0.6);
  });

  it("ends the transcript after STOP, with what was said", async () => {
    const t = await readText(id);
    expect(t.status).toBe("ended");
    expect(vocabularyShare(said, t.transcript as string), t.transcript as string).toBeGreaterThanOrEqual(0.5);
  });
});

describe("the app's Record page with a fake microphone", () => {
  it(
    "shows the words as they are spoken, and after Stop opens the finished transcript with them",
    async () => {
      const context = await browser.newContext();
      await context.addInitScript(
        (t) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem("scribe.token", t),
        token,
      );
      const { page, problems } = await watchedPage(context);
      await page.goto(`${sys.baseUrl}/live`);
      await page.getByLabel("Name").fill("Recorded in the app");
      await page.getByRole("button", { name: "Start recording" }).click();
      const heard = page.getByRole("article", { name: "Words heard so far" });
      // The fake microphone loops the file: record until a few lines were recognised.
      await expect
        .poll(() => heard.locator("p").allTextContents(), { timeout: RUN_MS })
        .toSatisfy((shown: string[]) => shown.length >= 3 && !shown[0]!.startsWith("Listening"));
      const whileRecording = (await heard.locator("p").allTextContents()).join(" ");
      expect(vocabularyShare(whileRecording, said), whileRecording).toBeGreaterThanOrEqual(0.6);
      await page.screenshot({ path: join(SCREENSHOTS, "live-recording.png"), fullPage: true });

      await page.getByRole("button", { name: "Stop" }).click();
      await page.waitForURL(/\/transcripts\/[0-9a-f-]{36}$/, { timeout: RUN_MS });
      await page.locator(".word").first().waitFor();
      const id = new URL(page.url()).pathname.split("/").pop()!;
      const t = await readText(id);
      expect([t.status, t.name, t.source_kind]).toEqual(["ended", "Recorded in the app", "live"]);
      const shown = (await page.locator(".word").allTextContents()).join(" ");
      expect(vocabularyShare(shown, said), shown).toBeGreaterThanOrEqual(0.5);
      await page.screenshot({ path: join(SCREENSHOTS, "live-recorded-transcript.png"), fullPage: true });
      expect(problems).toEqual([]);
      await context.close();
    },
    2 * RUN_MS + 30_000,
  );
});
