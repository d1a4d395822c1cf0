// Upload: pick a recording, name it, choose its language; the file goes up in chunks with a
// progress bar, then the page follows processing live and opens the transcript when it is done.
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "wouter-preact";
import { api, describeError } from "../api";
import { appConfig } from "../app-config";
import { ProcessingStatus, useTranscriptStatus } from "../components/processing-status";
import { TranscriptFields } from "../components/transcript-fields";
import { formatBytes, planChunks, uploadFile, UploadError } from "../upload";

type Phase = { step: "choose" } | { step: "uploading"; id: string; progress: number } | { step: "processing"; id: string };

/** "team-sync_2024.mp3" → "team-sync 2024". */
const nameFromFile = (file: string) => file.replace(/\.[^.]+$/, "").replace(/[_]+/g, " ");

export function Upload() {
  const [, navigate] = useLocation();
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState("");
  const [language, setLanguage] = useState("en");
  const [phase, setPhase] = useState<Phase>({ step: "choose" });
  const [error, setError] = useState<string | null>(null);
  const [steps, setSteps] = useState<string[]>([]);
  const id = phase.step === "choose" ? null : phase.id;
  const [status, setStatus] = useTranscriptStatus(
    id,
    "idle",
    (event, data) => {
      if (event === "DURATION" && typeof data.duration === "number")
        setSteps((s) => [...s, `Length: ${Math.round((data.duration as number) / 1000)} s`]);
      if (event === "FINAL_TITLE" && typeof data.title === "string") setSteps((s) => [...s, `Title: ${data.title as string}`]);
      if (event === "TOPIC") setSteps((s) => [...s, "Topic found"]);
    },
    // Reconnected: the replay announces every step so far again.
    () => setSteps([]),
  );

  useEffect(() => {
    if (id && status === "ended") navigate(`/transcripts/${id}`);
  }, [id, status]);

  async function submit(event: Event) {
    event.preventDefault();
    if (!file) return setError("Choose a file to upload.");
    setError(null);
    setSteps([]);
    const config = await appConfig();
    try {
      planChunks(file.size, config.upload);
    } catch (e) {
      return setError((e as Error).message);
    }
    const { data, error: failure } = await api.POST("/v1/transcripts", {
      body: { name: name.trim() || nameFromFile(file.name), source_language: language, target_language: language, source_kind: "file" },
    });
    if (!data) return setError(describeError(failure));
    setPhase({ step: "uploading", id: data.id, progress: 0 });
    try {
      await uploadFile(data.id, file, config.upload, (progress) => setPhase({ step: "uploading", id: data.id, progress }));
      // "uploaded" is written without an event (behaviour §1.5): the page says it itself.
      setStatus((s) => (s === "idle" ? "uploaded" : s));
      setPhase({ step: "processing", id: data.id });
    } catch (e) {
      setError(e instanceof UploadError ? e.message : "The upload failed. Please try again.");
      setPhase({ step: "choose" });
      // The transcript has no audio: keep it out of the list (it stays in the trash).
      void api.DELETE("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: data.id } } });
    }
  }

  return (
    <section>
      <h1>Upload a recording</h1>
      {phase.step === "choose" && (
        <form onSubmit={(e) => void submit(e)}>
          <label>
            Audio or video file
            <input
              type="file"
              name="file"
              accept="audio/*,video/*"
              required
              aria-describedby="file-help"
              onChange={(e) => {
                const chosen = e.currentTarget.files?.[0] ?? null;
                setFile(chosen);
                if (chosen && !name) setName(nameFromFile(chosen.name));
              }}
            />
            <small id="file-help">
              {file ? `${file.name}, ${formatBytes(file.size)}` : "MP3, WAV, M4A, OGG, WebM, MP4 and most other formats."}
            </small>
          </label>
          <TranscriptFields
            name={name}
            onName={setName}
            language={language}
            onLanguage={setLanguage}
            namePlaceholder="Team meeting"
            error={error}
          />
          <button type="submit">Upload</button>
        </form>
      )}
      {phase.step === "uploading" && (
        <article>
          <label>
            Uploading {file?.name} — {Math.round(phase.progress * 100)}%
            <progress value={phase.progress} max={1} aria-label="Upload progress" />
          </label>
        </article>
      )}
      {phase.step === "processing" && <ProcessingStatus status={status} steps={steps} />}
      {phase.step === "processing" && status === "error" && (
        <p>
          <a href={`/transcripts/${phase.id}`}>Open the transcript</a> to see what happened or to reprocess it.
        </p>
      )}
    </section>
  );
}
