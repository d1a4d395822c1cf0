// Live Opus decoding: what a WebRTC peer sends (20 ms Opus packets with RTP timestamps) comes back
// as 16 kHz mono PCM on the sender's timeline, lost stretches filled rather than dropped.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeOggOpus, opusPacketSamples, readOggOpusPackets, startOpusDecoder } from "../src/index";
import { tone } from "./fixtures";

let dir: string;
let packets: Buffer[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "opus-stream-"));
  const wav = await tone({ seconds: 3, freq: 440, volume: 0.5 });
  await encodeOggOpus(wav, join(dir, "tone.ogg"));
  packets = await readOggOpusPackets(join(dir, "tone.ogg"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function decode(sent: { packet: Buffer; ts: number }[]): Promise<Int16Array> {
  const chunks: Buffer[] = [];
  const decoder = startOpusDecoder({ sampleRate: 16_000, onPcm: (c) => chunks.push(c) });
  for (const { packet, ts } of sent) decoder.write(packet, ts);
  await decoder.end();
  const all = Buffer.concat(chunks);
  return new Int16Array(all.buffer, all.byteOffset, all.length / 2);
}

const rms = (s: Int16Array) => Math.sqrt(s.reduce((a, v) => a + v * v, 0) / Math.max(1, s.length));

describe("startOpusDecoder", () => {
  it("decodes 20 ms packets into the same length of 16 kHz PCM, with the signal", async () => {
    expect(packets.length).toBeGreaterThan(140);
    expect(packets.every((p) => opusPacketSamples(p) === 960)).toBe(true);
    const pcm = await decode(packets.map((packet, i) => ({ packet, ts: (1_000_000 + i * 960) >>> 0 })));
    expect(Math.abs(pcm.length - packets.length * 320)).toBeLessThan(1600);
    expect(rms(pcm.subarray(3200, 16000))).toBeGreaterThan(1000);
  });

  it("fills a gap in the RTP timeline, keeps time across the 32-bit wrap, drops repeats", async () => {
    const start = 0xffffffff - 960 * 10;
    const sent = packets
      .map((packet, i) => ({ packet, ts: (start + i * 960) >>> 0 }))
      // one second lost in the middle, and one packet delivered twice
      .filter((_, i) => i < 50 || i >= 100);
    sent.splice(10, 0, sent[9]!);
    const pcm = await decode(sent);
    expect(Math.abs(pcm.length - packets.length * 320)).toBeLessThan(1600);
    // the tone before and after the loss, (concealed, fading) near-silence inside it
    expect(rms(pcm.subarray(16_000 * 0.2, 16_000 * 0.9))).toBeGreaterThan(1000);
    expect(rms(pcm.subarray(16_000 * 1.5, 16_000 * 1.95))).toBeLessThan(300);
    expect(rms(pcm.subarray(16_000 * 2.2, 16_000 * 2.8))).toBeGreaterThan(1000);
  });
});
