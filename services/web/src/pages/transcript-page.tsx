// One transcript: editable title, summaries, action items, the speaker-attributed words (virtualised)
// synced with the audio player and a clickable waveform, speakers and participants, and for its
// owner: share mode, downloads, reprocess, delete/restore, live processing status and the runs.
// Everyone else who may read it (share mode public or semi-private) gets the same page read-only.
import { useEffect, useMemo, useState } from "preact/hooks";
import type { Schemas } from "@scribe/client";
import { api, describeError } from "../api";
import { ActionItemsView, type ActionItems } from "../components/action-items";
import { Runs } from "../components/runs";
import { Speakers } from "../components/speakers";
import { playable } from "../components/audio-link";
import { AudioPlayer } from "../components/audio-player";
import { TranscriptManage } from "../components/transcript-manage";
import { useTranscriptEvents, type TranscriptEvent } from "../components/transcript-events";
import { buildRows, speakersOf, type Topic } from "../components/transcript-rows";
import { Waveform } from "../components/waveform";
import { WordList } from "../components/word-list";
import { whoAmI } from "../me";
import { loadTopicsData, loadTranscriptData } from "../transcript-prefetch";
import { formatDuration } from "./transcript-list";

type Transcript = Schemas["GetTranscriptWithParticipants"] & { action_items?: ActionItems | null };
type Participant = Schemas["Participant"];
type Status = Transcript["status"];

/** Statuses after which nothing more arrives on the socket until someone reprocesses. */
const SETTLED: Status[] = ["ended", "error"];

export function TranscriptPage({ id }: { id: string }) {
  const [transcript, setTranscript] = useState<Transcript | null>(null);
  const [topics, setTopics] = useState<Topic[] | null>(null);
  const [participants, setParticipants] = useState<Participant[]>([]);
  const [waveform, setWaveform] = useState<number[] | null>(null);
  const [me, setMe] = useState<string | null>(null);
  const [liveStatus, setLiveStatus] = useState<Status | null>(null);
  const [deleted, setDeleted] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [title, setTitle] = useState("");
  const [player, setPlayer] = useState<HTMLAudioElement | null>(null);
  const path = { params: { path: { transcript_id: id } } };

  async function loadTranscript(): Promise<Transcript | null> {
    const { data, error: failure } = await loadTranscriptData(id);
    if (!data) {
      setError(describeError(failure));
      return null;
    }
    setTranscript(data);
    setTitle(data.title ?? "");
    setParticipants((data.participants ?? []).flatMap((p) => (p.id ? [{ id: p.id, speaker: p.speaker, name: p.name }] : [])));
    return data;
  }
  async function loadTopics() {
    const { data } = await loadTopicsData(id);
    setTopics(data ?? []);
  }
  async function loadParticipants() {
    const { data } = await api.GET("/v1/transcripts/{transcript_id}/participants", path);
    if (data) setParticipants(data);
  }

  useEffect(() => {
    setTranscript(null);
    setTopics(null);
    setDeleted(false);
    setLiveStatus(null);
    setWaveform(null);
    void loadTranscript();
    void loadTopics();
    void whoAmI().then(setMe);
  }, [id]);

  const status = liveStatus ?? transcript?.status ?? "idle";
  const hasAudio = !!transcript && playable(transcript);

  /** After a run settles, the read model catches up a moment later: reload until it shows the status. */
  async function reloadUntil(value: Status) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const fresh = await loadTranscript();
      if (!fresh || fresh.status === value) break;
      await new Promise((resolve) => setTimeout(resolve, 250 * (attempt + 1)));
    }
    setLiveStatus(null);
    await loadTopics();
  }

  useTranscriptEvents(
    id,
    !!transcript && !deleted,
    (message: TranscriptEvent) => {
      if (message.event === "STATUS") {
        const value = message.data.value as Status;
        setLiveStatus(value);
        if (SETTLED.includes(value)) void reloadUntil(value);
        return;
      }
      // The waveform is only on the socket (its replay on connect, or live from a run): asking the API
      // for one a transcript may not have (GET …/audio/waveform) would be a 404 on every such page.
      if (message.event === "WAVEFORM" && Array.isArray(message.data.waveform)) return setWaveform(message.data.waveform as number[]);
      // The replay on connect repeats a settled transcript's whole log: only a run in progress is news.
      if (SETTLED.includes(status)) return;
      if (message.event === "TOPIC") void loadTopics();
    },
    // Back after a drop: STATUS is not replayed, so read where the transcript is now.
    () => {
      setLiveStatus(null);
      void loadTranscript();
      void loadTopics();
    },
  );

  const model = useMemo(() => buildRows(topics ?? []), [topics]);
  const names = useMemo(() => new Map(participants.filter((p) => p.speaker != null).map((p) => [p.speaker!, p.name])), [participants]);
  const speakers = useMemo(() => speakersOf(model.words, participants), [model, participants]);

  async function restore() {
    const { error: failure } = await api.POST("/v1/transcripts/{transcript_id}/restore", path);
    if (failure) return setError(describeError(failure));
    setError(null);
    setDeleted(false);
    void loadTranscript();
  }

  if (deleted) {
    return (
      <article>
        <h1>{transcript?.title || transcript?.name || "Transcript"}</h1>
        <p role="status">This transcript is in the trash.</p>
        {error && <p role="alert">{error}</p>}
        <button onClick={() => void restore()}>Restore</button>
      </article>
    );
  }
  if (error && !transcript) return <p role="alert">{error}</p>;
  if (!transcript) return <p aria-busy="true">Loading…</p>;
  const owner = me !== null && transcript.user_id === me;

  async function saveTitle() {
    if (!transcript || title === (transcript.title ?? "")) return;
    const { data, error: failure } = await api.PATCH("/v1/transcripts/{transcript_id}", { ...path, body: { title } });
    if (!data) return setError(describeError(failure));
    setTranscript({ ...transcript, title: data.title });
  }

  return (
    <article class="transcript">
      <header>
        {owner ? (
          <label>
            Title
            <input
              name="title"
              value={title}
              onInput={(e) => setTitle(e.currentTarget.value)}
              onBlur={() => void saveTitle()}
              onKeyDown={(e) => e.key === "Enter" && void saveTitle()}
            />
          </label>
        ) : (
          <h1>{transcript.title || transcript.name}</h1>
        )}
        <small>
          <span class={`status status-${status}`} data-status={status}>
            {status}
          </span>{" "}
          · {new Date(transcript.created_at).toLocaleString()} · {formatDuration(transcript.duration / 1000)}
          {transcript.room_name ? ` · ${transcript.room_name}` : ""}
        </small>
        {!SETTLED.includes(status) && status !== "idle" && (
          <p role="status">
            Processing ({status})… this page updates when it is done.
            <progress />
          </p>
        )}
        {status === "error" && <p role="alert">Processing failed. {owner ? "See the processing runs below, or reprocess." : ""}</p>}
      </header>
      {error && <p role="alert">{error}</p>}
      {notice && <p role="status">{notice}</p>}
      {owner && (
        <TranscriptManage
          id={id}
          title={transcript.title || transcript.name}
          shareMode={transcript.share_mode}
          hasAudio={hasAudio}
          onShareMode={(share_mode) => setTranscript({ ...transcript, share_mode })}
          // The status follows from the socket's STATUS events as the new run goes.
          onReprocess={() => setNotice("Reprocessing started.")}
          onDeleted={() => setDeleted(true)}
        />
      )}
      {hasAudio && (
        <section class="player" aria-label="Recording">
          <AudioPlayer id={id} onPlayer={setPlayer} />
          {waveform && waveform.length > 0 && <Waveform data={waveform} duration={transcript.duration / 1000} player={player} />}
        </section>
      )}
      {transcript.audio_deleted && <p>The audio was deleted (privacy settings); the text stays.</p>}
      {(transcript.short_summary || transcript.long_summary) && (
        <section>
          <h2>Summary</h2>
          {transcript.short_summary && <p>{transcript.short_summary}</p>}
          {transcript.long_summary && (
            <details>
              <summary>Long summary</summary>
              <p class="long-summary">{transcript.long_summary}</p>
            </details>
          )}
        </section>
      )}
      <ActionItemsView items={transcript.action_items} />
      <Speakers
        transcriptId={id}
        participants={participants}
        speakers={speakers}
        editable={owner}
        onChanged={({ words }) => {
          void loadParticipants();
          if (words) void loadTopics();
        }}
      />
      <section>
        <h2>Transcript</h2>
        {topics === null && <p aria-busy="true">Loading the words…</p>}
        {topics?.length === 0 && <p>No words yet.</p>}
        {topics && topics.length > 0 && <WordList model={model} names={names} player={player} />}
      </section>
      {owner && <Runs transcriptId={id} refresh={status} />}
    </article>
  );
}
