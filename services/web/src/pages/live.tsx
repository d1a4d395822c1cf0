// Live recording: the microphone goes to POST /v1/transcripts/{id}/record/webrtc as a WebRTC audio
// track; the words come back as TRANSCRIPT events on the transcript's socket while they are spoken.
// Stop sends {"cmd":"STOP"} on the data channel, then the page follows processing to the transcript.
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "wouter-preact";
import { api, describeError } from "../api";
import { ProcessingStatus, useTranscriptStatus } from "../components/processing-status";
import { TranscriptFields } from "../components/transcript-fields";

interface Recorder {
  pc: RTCPeerConnection;
  channel: RTCDataChannel;
  stream: MediaStream;
}

/** Offer the microphone with a control channel; the answer comes from the API. */
async function connect(id: string, stream: MediaStream): Promise<Recorder> {
  const pc = new RTCPeerConnection();
  try {
    for (const track of stream.getAudioTracks()) pc.addTrack(track, stream);
    const channel = pc.createDataChannel("control");
    await pc.setLocalDescription(await pc.createOffer());
    // The API takes one offer with every candidate in it (no trickle ICE).
    await new Promise<void>((done) => {
      if (pc.iceGatheringState === "complete") return done();
      pc.addEventListener("icegatheringstatechange", () => pc.iceGatheringState === "complete" && done());
    });
    const offer = pc.localDescription!;
    const { data, error } = await api.POST("/v1/transcripts/{transcript_id}/record/webrtc", {
      params: { path: { transcript_id: id } },
      body: { sdp: offer.sdp, type: offer.type },
    });
    if (!data) throw new Error(describeError(error));
    await pc.setRemoteDescription(data as RTCSessionDescriptionInit);
    await new Promise<void>((done, fail) => {
      if (channel.readyState === "open") return done();
      channel.onopen = () => done();
      channel.onclose = () => fail(new Error("The recording connection closed before it opened."));
    });
    return { pc, channel, stream };
  } catch (e) {
    pc.close();
    throw e;
  }
}

function microphoneProblem(e: unknown): string {
  const name = (e as { name?: string }).name;
  if (name === "NotAllowedError") return "Scribe may not use the microphone. Allow it in the browser's site settings and try again.";
  if (name === "NotFoundError") return "No microphone was found.";
  return `The microphone could not be opened (${(e as Error).message}).`;
}

type Phase = "ready" | "starting" | "recording" | "stopping";

export function LiveRecording() {
  const [, navigate] = useLocation();
  const [name, setName] = useState("");
  const [language, setLanguage] = useState("en");
  const [id, setId] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>("ready");
  const [lines, setLines] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const recorder = useRef<Recorder | null>(null);
  const [status] = useTranscriptStatus(
    id,
    "idle",
    (event, data) => {
      if (event === "TRANSCRIPT" && typeof data.text === "string" && data.text.trim())
        setLines((l) => [...l, (data.text as string).trim()]);
    },
    // Reconnected: the replay brings every line said so far again.
    () => setLines([]),
  );

  const release = () => {
    recorder.current?.stream.getTracks().forEach((t) => t.stop());
    recorder.current?.pc.close();
    recorder.current = null;
  };
  useEffect(() => release, []);
  useEffect(() => {
    if (id && status === "ended") {
      release();
      navigate(`/transcripts/${id}`);
    }
    if (status === "error") release();
  }, [id, status]);

  async function start(event: Event) {
    event.preventDefault();
    setError(null);
    setPhase("starting");
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (e) {
      setPhase("ready");
      return setError(microphoneProblem(e));
    }
    const { data, error: failure } = await api.POST("/v1/transcripts", {
      body: {
        name: name.trim() || `Live recording ${new Date().toLocaleString()}`,
        source_language: language,
        target_language: language,
        source_kind: "live",
      },
    });
    if (!data) {
      stream.getTracks().forEach((t) => t.stop());
      setPhase("ready");
      return setError(describeError(failure));
    }
    setId(data.id);
    try {
      recorder.current = await connect(data.id, stream);
      setPhase("recording");
    } catch (e) {
      stream.getTracks().forEach((t) => t.stop());
      setPhase("ready");
      setId(null);
      setError(`The recording could not start: ${(e as Error).message}`);
    }
  }

  function stop() {
    recorder.current?.channel.send(JSON.stringify({ cmd: "STOP" }));
    // The microphone is done; the connection stays until the transcript ends.
    recorder.current?.stream.getTracks().forEach((t) => t.stop());
    setPhase("stopping");
  }

  return (
    <section>
      <h1>Record live</h1>
      {phase === "ready" || phase === "starting" ? (
        <form onSubmit={(e) => void start(e)}>
          <p>Scribe transcribes what your microphone hears while you speak; stop when you are done.</p>
          <TranscriptFields
            name={name}
            onName={setName}
            language={language}
            onLanguage={setLanguage}
            namePlaceholder="Stand-up"
            error={error}
          />
          <button type="submit" aria-busy={phase === "starting"} disabled={phase === "starting"}>
            Start recording
          </button>
        </form>
      ) : (
        <>
          {phase === "recording" ? (
            <p>
              <span class="status status-recording">● recording</span>{" "}
              <button class="contrast" onClick={stop}>
                Stop
              </button>
            </p>
          ) : (
            <ProcessingStatus status={status === "recording" ? "processing" : status} steps={[]} />
          )}
          <article class="live-words" aria-live="polite" aria-label="Words heard so far">
            {lines.length === 0 ? <p>Listening… the words appear here as they are recognised.</p> : lines.map((l, i) => <p key={i}>{l}</p>)}
          </article>
        </>
      )}
    </section>
  );
}
