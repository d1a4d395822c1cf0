// The gateway's shutdown with a response its client stopped reading: requests in flight get half of
// SHUTDOWN_TIMEOUT_MS, then their connections are closed, so the rest of the shutdown (consumers'
// batches, the outbox) still runs within the timeout. Before, such a response (an audio player's
// stream a browser left half-open) held the stop until its socket went away.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { transcriptKeys } from "@scribe/contracts";
import { eventually } from "@scribe/kit/testing";
import { afterAll, expect, it } from "vitest";
import { onTranscript } from "./support/api";
import { startSystem } from "./support/system";
import { TranscriptWriter } from "./support/transcripts";

const storageRoot = mkdtempSync(join(tmpdir(), "scribe-shutdown-"));
afterAll(() => rmSync(storageRoot, { recursive: true, force: true }));

it("closes the connection of a response its client stopped reading once half the shutdown time has passed, and finishes stopping", async () => {
  const sys = await startSystem({
    label: "gwshutdown",
    services: ["recordings", "projection", "gateway"],
    env: { STORAGE_LOCAL_ROOT: storageRoot, SHUTDOWN_TIMEOUT_MS: "2000" },
  });
  const tw = await TranscriptWriter.connect(sys.prefix);
  let stopped = false;
  let socket: Socket | null = null;
  try {
    const t = await tw.create({ user_id: "alice", status: "ended" });
    await tw.applied(t.id);
    // Far more than the socket buffers on either side hold, so the response cannot finish unread.
    mkdirSync(join(storageRoot, "scribe-transcripts", t.id), { recursive: true });
    writeFileSync(join(storageRoot, "scribe-transcripts", transcriptKeys.mp3(t.id)), randomBytes(64 * 1024 * 1024));
    await eventually(
      async () => (await sys.client("alice").HEAD("/v1/transcripts/{transcript_id}/audio/mp3", onTranscript(t.id))).response.status === 200,
      { message: "the recordings service has the transcript" },
    );

    // Raw: a client that asks for the audio and then reads nothing (the wire itself is what is tested).
    const { port } = new URL(sys.baseUrl);
    socket = connect(Number(port), "127.0.0.1");
    const token = await sys.token("alice");
    socket.write(`GET /v1/transcripts/${t.id}/audio/mp3 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    const reader = socket;
    const ended = new Promise<void>((resolve) => reader.on("close", () => resolve()));
    // The first bytes show the response has started; then the socket is paused for good.
    await new Promise<void>((resolve) => reader.once("data", () => resolve()));
    reader.pause();

    // Without the bound the stop waits for this socket, which never goes away by itself.
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      sys.stop().then(() => "stopped" as const),
      new Promise<"still waiting">((resolve) => (timer = setTimeout(() => resolve("still waiting"), 20_000))),
    ]);
    clearTimeout(timer);
    stopped = outcome === "stopped";
    expect(outcome).toBe("stopped");
    // The gateway closed it: read what was left, then the end comes.
    reader.resume();
    await ended;
  } finally {
    // A stop that waited on the socket can end once it is gone.
    socket?.destroy();
    await tw.close();
    if (!stopped) await sys.stop();
  }
}, 90_000);
