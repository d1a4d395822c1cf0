// Live decoding of an Opus packet stream (WebRTC audio) into PCM as it arrives: the packets are
// wrapped in Ogg pages (RFC 7845) written to ffmpeg's stdin, and s16le samples at the asked rate
// come back on stdout. Gaps in the RTP timeline (lost packets, DTX) are filled with empty Opus
// frames, which the decoder conceals, so the PCM timeline stays the sender's wall-clock timeline.
import { spawn } from "node:child_process";
import { open } from "node:fs/promises";
import { MediaError } from "./errors";
import { FFMPEG, inputArgs, type ProgressOptions } from "./tool";
import { writeOutput, type OutputInfo } from "./transcode";

const OPUS_RATE = 48_000;
/** A TOC byte of a CELT-only 20 ms mono frame with no data: "decode as lost" (RFC 6716 §3.2.1). */
const EMPTY_20MS_FRAME = Buffer.from([0xf8]);
const SAMPLES_20MS = OPUS_RATE / 50;
/** Longer gaps are a sender that restarted its clock, not silence to fill. */
const MAX_GAP_SAMPLES = OPUS_RATE * 30;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

function oggCrc(page: Buffer): number {
  let crc = 0;
  for (const byte of page) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]!) >>> 0;
  return crc;
}

/** Ogg pages of one logical Opus stream, one packet per page. */
export class OggOpusWriter {
  private sequence = 0;
  private readonly serial = Math.floor(Math.random() * 0xffffffff) >>> 0;

  constructor(private readonly channels: 1 | 2 = 2) {}

  /** The two header pages (identification, comments). */
  headers(): Buffer {
    const head = Buffer.alloc(19);
    head.write("OpusHead", 0, "ascii");
    head.writeUInt8(1, 8);
    head.writeUInt8(this.channels, 9);
    head.writeUInt16LE(312, 10); // pre-skip: libopus' usual encoder delay
    head.writeUInt32LE(OPUS_RATE, 12);
    const vendor = Buffer.from("scribe", "ascii");
    const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
    tags.write("OpusTags", 0, "ascii");
    tags.writeUInt32LE(vendor.length, 8);
    vendor.copy(tags, 12);
    return Buffer.concat([this.page(head, 0n, 0x02), this.page(tags, 0n, 0)]);
  }

  /** A page holding `packet`, ending at `granule` (48 kHz samples since the start). */
  packet(packet: Buffer, granule: bigint, last = false): Buffer {
    return this.page(packet, granule, last ? 0x04 : 0);
  }

  private page(data: Buffer, granule: bigint, flags: number): Buffer {
    const lacing: number[] = [];
    let left = data.length;
    while (left >= 255) {
      lacing.push(255);
      left -= 255;
    }
    lacing.push(left);
    if (lacing.length > 255) throw new MediaError("invalid_argument", `Opus packet of ${data.length} bytes does not fit one Ogg page`);
    const header = Buffer.alloc(27 + lacing.length);
    header.write("OggS", 0, "ascii");
    header.writeUInt8(0, 4);
    header.writeUInt8(flags, 5);
    header.writeBigInt64LE(granule, 6);
    header.writeUInt32LE(this.serial, 14);
    header.writeUInt32LE(this.sequence++, 18);
    header.writeUInt32LE(0, 22);
    header.writeUInt8(lacing.length, 26);
    Buffer.from(lacing).copy(header, 27);
    const page = Buffer.concat([header, data]);
    page.writeUInt32LE(oggCrc(page), 22);
    return page;
  }
}

export interface OpusDecoderOptions {
  /** Output sample rate (mono s16le); 16 kHz is what speech-to-text wants. */
  sampleRate?: number;
  /** Samples as they are decoded (any chunk size, always whole samples). */
  onPcm: (pcm: Buffer) => void;
  signal?: AbortSignal;
}

export interface OpusStreamDecoder {
  /** One Opus packet with its RTP timestamp (48 kHz clock). Out-of-order or repeated packets are dropped. */
  write(packet: Buffer, rtpTimestamp: number): void;
  /** No more packets: resolves once every sample has been delivered to onPcm. */
  end(): Promise<void>;
  /** Settles when ffmpeg exits (rejects with why when it failed), without ending the input. */
  readonly done: Promise<void>;
  /** Stop at once, dropping what is not decoded yet. */
  kill(): void;
}

/** Samples (48 kHz) an Opus packet decodes to, from its TOC byte (RFC 6716 §3.1). */
export function opusPacketSamples(packet: Buffer): number {
  const toc = packet[0] ?? 0;
  const config = toc >> 3;
  const frameTenthsMs =
    config < 12 ? [100, 200, 400, 600][config % 4]! : config < 16 ? [100, 200][config % 2]! : [25, 50, 100, 200][config % 4]!;
  const code = toc & 3;
  const frames = code === 0 ? 1 : code === 3 ? (packet[1] ?? 0) & 0x3f : 2;
  return (frameTenthsMs * 48 * frames) / 10;
}

/** Start one ffmpeg process decoding a live Opus stream (mono output at `sampleRate`). */
export function startOpusDecoder(opts: OpusDecoderOptions): OpusStreamDecoder {
  const rate = opts.sampleRate ?? 16_000;
  const args = [
    "-nostdin",
    "-hide_banner",
    "-loglevel",
    "error",
    "-fflags",
    "nobuffer",
    "-probesize",
    "32",
    "-analyzeduration",
    "0",
    "-f",
    "ogg",
    "-i",
    "pipe:0",
    "-ac",
    "1",
    "-ar",
    String(rate),
    "-f",
    "s16le",
    "-flush_packets",
    "1",
    "pipe:1",
  ];
  const child = spawn(FFMPEG, args, { stdio: ["pipe", "pipe", "pipe"] });
  const ogg = new OggOpusWriter(2);
  let stderr = "";
  let failure: MediaError | null = null;
  let carry: Buffer = Buffer.alloc(0);
  let granule = 0n;
  let lastTimestamp: number | null = null;
  let expectedNext: number | null = null;
  let ended = false;

  const closed = new Promise<void>((resolve, reject) => {
    child.on("error", (e) => {
      failure ??= new MediaError("failed", `cannot run ${FFMPEG}: ${e.message} (is ffmpeg installed? FFMPEG_PATH)`, { cause: e });
    });
    child.on("close", (code) => {
      opts.signal?.removeEventListener("abort", onAbort);
      if (failure) return reject(failure);
      if (code !== 0)
        return reject(
          new MediaError("failed", `live Opus decoding failed (ffmpeg exit ${code}): ${stderr.trim().slice(-500)}`, { stderr }),
        );
      resolve();
    });
  });
  // A caller that only kills never awaits `end()`: the rejection must not be unhandled.
  closed.catch(() => {});

  child.stdout.on("data", (chunk: Buffer) => {
    const all = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    const whole = all.length - (all.length % 2);
    carry = all.subarray(whole);
    if (whole > 0) opts.onPcm(all.subarray(0, whole));
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-8192);
  });
  // The process may die while we write: the close handler reports why.
  child.stdin.on("error", () => {});
  child.stdin.write(ogg.headers());

  const kill = () => {
    failure ??= new MediaError("aborted", "live Opus decoding stopped");
    child.kill("SIGKILL");
  };
  const onAbort = () => kill();
  opts.signal?.addEventListener("abort", onAbort, { once: true });

  const push = (packet: Buffer, samples: number) => {
    granule += BigInt(samples);
    child.stdin.write(ogg.packet(packet, granule));
  };

  return {
    write(packet, rtpTimestamp) {
      if (ended || child.stdin.destroyed || packet.length === 0) return;
      // RTP timestamps wrap at 2^32: the signed 32-bit difference orders them.
      if (lastTimestamp !== null && ((rtpTimestamp - lastTimestamp) | 0) <= 0) return;
      if (expectedNext !== null) {
        const gap = (rtpTimestamp - expectedNext) | 0;
        if (gap >= SAMPLES_20MS && gap <= MAX_GAP_SAMPLES) {
          for (let filled = 0; filled + SAMPLES_20MS <= gap; filled += SAMPLES_20MS) push(EMPTY_20MS_FRAME, SAMPLES_20MS);
        }
      }
      const samples = opusPacketSamples(packet);
      lastTimestamp = rtpTimestamp;
      expectedNext = (rtpTimestamp + samples) >>> 0;
      push(packet, samples);
    },
    async end() {
      if (!ended) {
        ended = true;
        child.stdin.end();
      }
      await closed;
    },
    done: closed,
    kill,
  };
}

/** Encode `input` as Ogg/Opus in 20 ms packets, what a WebRTC sender transmits (test peers, benches). */
export function encodeOggOpus(
  input: string,
  output: string,
  opts: ProgressOptions & { bitrateKbps?: number; channels?: 1 | 2 } = {},
): Promise<OutputInfo> {
  const codec = [
    "-c:a",
    "libopus",
    "-b:a",
    `${opts.bitrateKbps ?? 32}k`,
    "-frame_duration",
    "20",
    "-ar",
    "48000",
    "-ac",
    String(opts.channels ?? 1),
  ];
  return writeOutput(output, (tmp) => [...inputArgs(input), "-map", "0:a:0", "-vn", "-sn", "-dn", ...codec, "-f", "ogg", tmp], input, opts);
}

/** The audio packets of an Ogg/Opus file, in order (the two header packets skipped). */
export async function readOggOpusPackets(path: string): Promise<Buffer[]> {
  const file = await open(path, "r");
  let data: Buffer;
  try {
    data = await file.readFile();
  } finally {
    await file.close();
  }
  const packets: Buffer[] = [];
  let partial: Buffer[] = [];
  for (let at = 0; at + 27 <= data.length;) {
    if (data.toString("ascii", at, at + 4) !== "OggS") throw new MediaError("corrupt", `not an Ogg page at byte ${at} of ${path}`);
    const segments = data.readUInt8(at + 26);
    const lacing = data.subarray(at + 27, at + 27 + segments);
    let body = at + 27 + segments;
    for (const size of lacing) {
      partial.push(data.subarray(body, body + size));
      body += size;
      // A lacing value below 255 ends a packet; 255 continues it in the next segment.
      if (size < 255) {
        packets.push(Buffer.concat(partial));
        partial = [];
      }
    }
    at = body;
  }
  return packets.filter((p) => !p.subarray(0, 8).equals(Buffer.from("OpusHead")) && !p.subarray(0, 8).equals(Buffer.from("OpusTags")));
}
