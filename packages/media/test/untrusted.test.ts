// Media is untrusted (issue 15.1): a playlist or file list must not make ffmpeg read another file
// or a URL. Each attack file below is first shown to work against a bare ffprobe, so these tests
// prove the guard, not a harmless fixture.
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  analyzeAudio,
  audioDurationMs,
  decodePcm,
  encodeMp3,
  inputArgs,
  isMediaError,
  mixdown,
  probe,
  toSpeechWav,
  trackStartOffset,
  type MediaError,
} from "../src/index";
import { tone } from "./fixtures";

const run = promisify(execFile);

let dir: string;
/** Another user's stored audio, in a folder beside the attacker's upload. */
let secret: string;
let server: Server;
let requests = 0;
let urlOf: (path: string) => string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scribe-untrusted-"));
  await mkdir(join(dir, "victim"));
  await mkdir(join(dir, "attacker"));
  secret = join(dir, "victim", "audio.mp3");
  await copyFile(await tone({ seconds: 2, freq: 1000, name: "secret.mp3", out: ["-c:a", "libmp3lame", "-f", "mp3"] }), secret);
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { "content-type": "audio/mpeg" }).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  urlOf = (path) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

async function attackFile(name: string, text: string): Promise<string> {
  const path = join(dir, "attacker", name);
  await writeFile(path, text);
  return path;
}

const playlist = (entry: string) => `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:2,\n${entry}\n#EXT-X-ENDLIST\n`;

async function refusal(p: Promise<unknown>): Promise<MediaError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(isMediaError(e, "unsupported_format"), `expected unsupported_format, got ${String(e)}`).toBe(true);
  expect((e as MediaError).retryable).toBe(false);
  return e as MediaError;
}

/** Every operation on `input` is refused and writes nothing. */
async function refusedEverywhere(input: string): Promise<void> {
  await refusal(probe(input));
  await refusal(trackStartOffset(input));
  await refusal(audioDurationMs(input));
  await refusal(analyzeAudio(input));
  await refusal(
    (async () => {
      for await (const _ of decodePcm(input)) throw new Error("decoded samples of a playlist");
    })(),
  );
  await refusal(toSpeechWav(input, join(dir, "attacker", "out.wav")));
  await refusal(encodeMp3(input, join(dir, "attacker", "out.mp3")));
  await refusal(mixdown([{ input, offsetSeconds: 0 }], join(dir, "attacker", "mix.mp3"), { format: { kind: "mp3", sampleRate: 16000 } }));
  expect((await readdir(join(dir, "attacker"))).filter((f) => f.startsWith("out.") || f.startsWith("mix."))).toEqual([]);
}

describe("inputs that reference other files or URLs are refused", () => {
  it("an HLS playlist naming another user's file by absolute path", async () => {
    const input = await attackFile("upload.m3u8", playlist(secret));
    // Without the guard ffprobe reads the other file through the playlist.
    const bare = await run("ffprobe", ["-v", "error", "-show_entries", "format=format_name,duration", "-of", "csv=p=0", input]);
    expect(bare.stdout.trim()).toMatch(/^hls,2\./);
    await refusedEverywhere(input);
  });

  it("an HLS playlist naming the other file by a relative path", async () => {
    const input = await attackFile("relative.m3u8", playlist("../victim/audio.mp3"));
    const bare = await run("ffprobe", ["-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", input]);
    expect(bare.stdout.trim()).toBe("hls");
    await refusedEverywhere(input);
  });

  it("a concat list (ffconcat) naming a file stored beside it", async () => {
    // The concat demuxer's own "safe" mode refuses ".." and absolute paths, not a neighbour.
    await copyFile(secret, join(dir, "attacker", "neighbour.mp3"));
    const input = await attackFile("upload.txt", `ffconcat version 1.0\nfile 'neighbour.mp3'\n`);
    const bare = await run("ffprobe", ["-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", input]);
    expect(bare.stdout.trim()).toBe("concat");
    await refusedEverywhere(input);
  });

  it("an HLS playlist pointing to a URL: refused without a single request", async () => {
    const input = await attackFile("remote.m3u8", playlist(urlOf("/segment.mp3")));
    await refusedEverywhere(input);
    expect(requests).toBe(0);
  });

  it("a demuxer outside the allow-list named explicitly", () => {
    expect(() => inputArgs(secret, "hls")).toThrow(/unsupported media format hls/);
    expect(() => inputArgs(secret, "concat")).toThrow(/unsupported media format/);
  });
});

describe("self-contained audio and video still process", () => {
  it.each([
    ["wav", "plain.wav", ["-ac", "1", "-c:a", "pcm_s16le", "-f", "wav"], "wav"],
    ["mp3", "plain.mp3", ["-c:a", "libmp3lame", "-f", "mp3"], "mp3"],
    ["mp4", "plain.mp4", ["-c:a", "aac", "-f", "mp4"], "mov"],
    ["ogg", "plain.ogg", ["-c:a", "libopus", "-f", "ogg"], "ogg"],
    ["flac", "plain.flac", ["-c:a", "flac", "-f", "flac"], "flac"],
  ] as const)("%s: probed as %s and converted with that demuxer named", async (_kind, name, out, demuxer) => {
    const input = await tone({ seconds: 1, name, out: [...out] });
    const info = await probe(input);
    expect(info.demuxer).toBe(demuxer);
    const converted = await toSpeechWav(input, join(dir, `${name}.wav`), { inputFormat: info.demuxer });
    expect(converted.durationMs).toBeGreaterThan(900);
  });

  it("webm: a platform track with a start offset", async () => {
    const input = await tone({
      seconds: 1,
      sampleRate: 48000,
      tsOffset: 1.5,
      name: "track.webm",
      out: ["-ac", "1", "-c:a", "libopus", "-f", "webm"],
    });
    const info = await probe(input);
    expect(info.demuxer).toBe("matroska");
    expect((await trackStartOffset(input, { inputFormat: info.demuxer })).seconds).toBeCloseTo(1.5, 1);
    expect(await audioDurationMs(input, { inputFormat: info.demuxer })).toBeGreaterThan(900);
  });
});
