// The web app's budgets (issue 17): first-load compressed JavaScript (the entry chunk and the chunks it
// imports statically, as index.html loads them) against 200 KB; and a 60-minute transcript's page
// time-to-interactive in headless chromium (navigation start → words visible and a click on a word
// handled, i.e. the audio moved to that word) against 1 s, next to the same page for a 1-minute
// transcript measured in the same run. Transcripts are written to the read model directly (~160 words
// a minute, as people speak: meetingWords), with a silent mp3 and a waveform of the right length in storage.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { transcriptKeys } from "@scribe/contracts";
import { buildWebApp, launchChromium } from "../test/support/browser";
import { startSystem } from "../test/support/system";
import { meetingWords, topicRecord, TranscriptWriter } from "../test/support/transcripts";
import { formatNumber, report } from "./report";

const ROOT = join(import.meta.dirname, "..");
const DIST = join(ROOT, "services", "web", "dist");
const BUDGET_KB = 200;
const BUDGET_MS = 1000;
const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 5);

/** The entry script and its static imports, as the built index.html references them. */
function firstLoadScripts(): string[] {
  const html = readFileSync(join(DIST, "index.html"), "utf8");
  const entry = [...html.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]!);
  const preloaded = [...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g)].map((m) => m[1]!);
  return [...entry, ...preloaded];
}

function firstLoadSize(): void {
  const scripts = firstLoadScripts();
  const bytes = Buffer.concat(scripts.map((src) => readFileSync(join(DIST, src))));
  const gzip = gzipSync(bytes, { level: 9 }).length / 1024;
  const brotli = brotliCompressSync(bytes).length / 1024;
  console.log(`first load: ${scripts.join(", ")} (${formatNumber(bytes.length / 1024)} KB raw)`);
  report(
    { name: "first-load JS, gzip", value: gzip, unit: "KB" },
    { name: "budget", label: `the ${BUDGET_KB} KB budget`, value: BUDGET_KB, unit: "KB" },
  );
  report(
    { name: "first-load JS, brotli", value: brotli, unit: "KB" },
    { name: "budget", label: `the ${BUDGET_KB} KB budget`, value: BUDGET_KB, unit: "KB" },
  );
}

function silentMp3(path: string, seconds: number): void {
  execFileSync("ffmpeg", [
    "-v",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    "anullsrc=r=8000:cl=mono",
    "-t",
    String(seconds),
    "-c:a",
    "libmp3lame",
    "-b:a",
    "8k",
    path,
  ]);
}

export default async function webBench(): Promise<void> {
  buildWebApp();
  firstLoadSize();

  const storage = mkdtempSync(join(tmpdir(), "scribe-webbench-"));
  const sys = await startSystem({
    label: "webbench",
    services: ["recordings", "projection", "gateway"],
    env: { STORAGE_LOCAL_ROOT: storage },
  });
  const tw = await TranscriptWriter.connect(sys.prefix);
  const browser = await launchChromium(["--autoplay-policy=no-user-gesture-required"]);
  try {
    async function transcriptOf(minutes: number): Promise<string> {
      const t = await tw.create({ user_id: "alice", title: `${minutes}-minute meeting`, duration: minutes * 60_000, status: "ended" });
      const words = meetingWords(minutes);
      for (const [position, minuteWords] of words.entries())
        await tw.upsertTopic(t.id, position, topicRecord(minuteWords, { title: `Minute ${position + 1}` }));
      await tw.applied(t.id, 30_000);
      const dir = join(storage, "scribe-transcripts", t.id);
      mkdirSync(dir, { recursive: true });
      silentMp3(join(storage, "scribe-transcripts", transcriptKeys.mp3(t.id)), minutes * 60);
      writeFileSync(
        join(storage, "scribe-transcripts", transcriptKeys.waveform(t.id)),
        JSON.stringify(Array.from({ length: 2000 }, (_, i) => Math.abs(Math.sin(i / 7)))),
      );
      return t.id;
    }
    const token = await sys.token("alice");

    /** Milliseconds from navigation start until a word is visible and a click on it moved the audio there. */
    async function timeToInteractive(id: string): Promise<number> {
      const context = await browser.newContext();
      await context.addInitScript(
        (t) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem("scribe.token", t),
        token,
      );
      const page = await context.newPage();
      await page.goto(`${sys.baseUrl}/transcripts/${id}`, { waitUntil: "commit" });
      const word = page.locator(".word").nth(20);
      await word.click();
      const start = Number(await word.getAttribute("data-start"));
      // Playback starts at the word, so the position is at or just past it.
      await page.waitForFunction(
        `(t => t >= ${start} - 0.01 && t < ${start} + 2)(document.querySelector("audio").currentTime)`,
        undefined,
        { polling: "raf" },
      );
      const elapsed = (await page.evaluate("performance.now()")) as number;
      await context.close();
      return elapsed;
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    async function measure(id: string): Promise<number> {
      await timeToInteractive(id); // warm the server's caches and the browser's compiler
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await timeToInteractive(id));
      return median(times);
    }

    const short = await transcriptOf(1);
    const long = await transcriptOf(60);
    const shortMs = await measure(short);
    const longMs = await measure(long);
    console.log(`(${meetingWords(60).flat().length} words in the 60-minute transcript; median of ${RUNS} page loads each)`);
    report(
      { name: "60-minute transcript page interactive", value: longMs, unit: "ms" },
      { name: "1 min", label: "the 1-minute transcript's page", value: shortMs, unit: "ms" },
    );
    report(
      { name: "60-minute transcript page interactive", value: longMs, unit: "ms" },
      { name: "goal", label: `the ${BUDGET_MS} ms goal`, value: BUDGET_MS, unit: "ms" },
    );
  } finally {
    await browser.close();
    await tw.close();
    await sys.stop();
    rmSync(storage, { recursive: true, force: true });
  }
}
