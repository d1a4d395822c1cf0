// A WebRTC sender for the live recording tests and bench: a werift peer that offers one Opus audio
// track and a data channel, posts its offer to POST /v1/transcripts/{id}/record/webrtc, and plays
// an Ogg/Opus file in real time (20 ms packets), then sends `{"cmd":"STOP"}`.
import { encodeOggOpus, readOggOpusPackets } from "@scribe/media";
import { MediaStreamTrack, RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, RtpPacket } from "werift";
import type { Schemas, ScribeClient } from "@scribe/client";

/** `wav` as the 20 ms Opus packets a browser would send (encoded next to it, once). */
export async function opusPacketsOf(wav: string): Promise<Buffer[]> {
  const ogg = wav.replace(/\.wav$/, "") + ".opus.ogg";
  await encodeOggOpus(wav, ogg);
  return readOggOpusPackets(ogg);
}

export interface LivePeer {
  pc: RTCPeerConnection;
  /** Plays the packets in real time (one per 20 ms); `onPacket` sees the index of each one sent. */
  play(packets: Buffer[], onPacket?: (index: number) => void): Promise<void>;
  /** `{"cmd":"STOP"}` on the data channel. */
  stop(): void;
  close(): Promise<void>;
}

const waitFor = <T>(subscribe: (done: (v: T) => void) => void) => new Promise<T>((resolve) => subscribe(resolve));

/** Connects to Scribe for transcript `id`; rejects with the HTTP answer when the offer is refused. */
export async function connectLivePeer(client: ScribeClient, id: string): Promise<LivePeer> {
  const pc = new RTCPeerConnection({
    codecs: { audio: [new RTCRtpCodecParameters({ mimeType: "audio/opus", clockRate: 48_000, channels: 2 })] },
  });
  const track = new MediaStreamTrack({ kind: "audio" });
  pc.addTransceiver(track, { direction: "sendonly" });
  const channel = pc.createDataChannel("control");
  await pc.setLocalDescription(await pc.createOffer());
  if (pc.iceGatheringState !== "complete") {
    await waitFor<void>((done) => pc.iceGatheringStateChange.subscribe((s) => s === "complete" && done()));
  }
  const { data, error, response } = await client.POST("/v1/transcripts/{transcript_id}/record/webrtc", {
    params: { path: { transcript_id: id } },
    body: { sdp: pc.localDescription!.sdp, type: "offer" },
  });
  if (response.status !== 200) {
    await pc.close();
    throw Object.assign(new Error(`offer refused: ${response.status} ${JSON.stringify(error)}`), { status: response.status });
  }
  // api.md: the answer is an RtcOffer, which the reference's OpenAPI (and so ours) does not declare.
  const answer = data as Schemas["RtcOffer"] & { type: "answer" };
  await pc.setRemoteDescription(answer);
  if (pc.connectionState !== "connected") {
    await waitFor<void>((done) => pc.connectionStateChange.subscribe((s) => s === "connected" && done()));
  }
  if (channel.readyState !== "open") await waitFor<void>((done) => channel.stateChanged.subscribe((s) => s === "open" && done()));

  const ssrc = Math.floor(Math.random() * 0xffffffff) >>> 0;
  return {
    pc,
    async play(packets, onPacket) {
      const start = performance.now();
      for (const [i, payload] of packets.entries()) {
        const due = start + i * 20;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const header = new RtpHeader({ payloadType: 111, sequenceNumber: i & 0xffff, timestamp: (i * 960) >>> 0, marker: i === 0, ssrc });
        track.writeRtp(new RtpPacket(header, payload));
        onPacket?.(i);
      }
    },
    stop() {
      channel.send(JSON.stringify({ cmd: "STOP" }));
    },
    close: () => pc.close(),
  };
}
