// One transcript: editable title, summaries, action items, topics and the speaker-attributed words,
// with an audio player that plays from the word you click.
import { useEffect, useRef, useState } from "preact/hooks";
import type { Schemas } from "@scribe/client";
import { api, describeError, session } from "../api";
import { formatDuration } from "./transcript-list";

type Transcript = Schemas["GetTranscriptWithParticipants"];
type Topic = Schemas["GetTranscriptTopicWithWords"];
type Word = Schemas["Word"];
type TranscriptParticipant = NonNullable<Transcript["participants"]>[number];

/** Consecutive words of one speaker, shown as one paragraph. */
function turns(words: Word[]): { speaker: number; words: Word[] }[] {
  const out: { speaker: number; words: Word[] }[] = [];
  for (const word of words) {
    const last = out[out.length - 1];
    if (last && last.speaker === word.speaker) last.words.push(word);
    else out.push({ speaker: word.speaker, words: [word] });
  }
  return out;
}

export function TranscriptPage({ id }: { id: string }) {
  const [transcript, setTranscript] = useState<Transcript | null>(null);
  const [topics, setTopics] = useState<Topic[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [title, setTitle] = useState("");
  const audio = useRef<HTMLAudioElement>(null);
  const path = { params: { path: { transcript_id: id } } };

  useEffect(() => {
    void api.GET("/v1/transcripts/{transcript_id}", path).then(({ data, error: failure }) => {
      if (!data) return setError(describeError(failure));
      setTranscript(data);
      setTitle(data.title ?? "");
    });
    void api.GET("/v1/transcripts/{transcript_id}/topics/with-words", path).then(({ data }) => setTopics(data ?? []));
  }, [id]);

  async function saveTitle() {
    if (!transcript || title === (transcript.title ?? "")) return;
    const { data, error: failure } = await api.PATCH("/v1/transcripts/{transcript_id}", { ...path, body: { title } });
    if (!data) return setError(describeError(failure));
    setTranscript({ ...transcript, title: data.title });
  }

  async function renameSpeaker(participant: TranscriptParticipant, name: string) {
    if (!transcript || !participant.id || !name.trim() || name === participant.name) return;
    const { data, error: failure } = await api.PATCH("/v1/transcripts/{transcript_id}/participants/{participant_id}", {
      params: { path: { transcript_id: id, participant_id: participant.id } },
      body: { name: name.trim() },
    });
    if (!data) return setError(describeError(failure));
    setTranscript({
      ...transcript,
      participants: (transcript.participants ?? []).map((p) => (p.id === data.id ? { ...p, name: data.name } : p)),
    });
  }

  function playFrom(word: Word) {
    const player = audio.current;
    if (!player) return;
    player.currentTime = word.start;
    void player.play();
  }

  if (error) return <p role="alert">{error}</p>;
  if (!transcript) return <p aria-busy="true">Loading…</p>;
  const names = new Map((transcript.participants ?? []).filter((p) => p.speaker != null).map((p) => [p.speaker!, p.name]));
  const token = session.token();
  const audioUrl = `/v1/transcripts/${id}/audio/mp3${token ? `?token=${encodeURIComponent(token)}` : ""}`;

  return (
    <article>
      <header>
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
        <small>
          <span class={`status status-${transcript.status}`}>{transcript.status}</span> · {new Date(transcript.created_at).toLocaleString()}{" "}
          · {formatDuration(transcript.duration / 1000)}
          {transcript.room_name ? ` · ${transcript.room_name}` : ""}
        </small>
      </header>
      {transcript.status === "ended" && !transcript.audio_deleted && (
        <audio ref={audio} controls preload="metadata" src={audioUrl} class="player" />
      )}
      {transcript.short_summary && (
        <section>
          <h2>Summary</h2>
          <p>{transcript.short_summary}</p>
          {transcript.long_summary && (
            <details>
              <summary>Long summary</summary>
              <p>{transcript.long_summary}</p>
            </details>
          )}
        </section>
      )}
      {(transcript.participants ?? []).length > 0 && (
        <details>
          <summary>Speakers</summary>
          {(transcript.participants ?? []).map((p) => (
            <label key={p.id ?? p.name}>
              {p.speaker != null ? `Speaker ${p.speaker}` : "Unassigned"}
              <input
                name={`participant-${p.id}`}
                defaultValue={p.name}
                onBlur={(e) => void renameSpeaker(p, e.currentTarget.value)}
                onKeyDown={(e) => e.key === "Enter" && void renameSpeaker(p, e.currentTarget.value)}
              />
            </label>
          ))}
        </details>
      )}
      <section>
        <h2>Transcript</h2>
        {topics.length === 0 && <p>No words yet.</p>}
        {topics.map((topic) => (
          <section key={topic.id} class="topic">
            <h3>
              {topic.title} <small>{formatDuration(topic.timestamp)}</small>
            </h3>
            {topic.summary && <p>{topic.summary}</p>}
            {turns(topic.words).map((turn, i) => (
              <div key={i} class="segment">
                <span class="speaker">{names.get(turn.speaker) ?? `Speaker ${turn.speaker}`}</span>
                <p>
                  {turn.words.map((word, j) => (
                    <span
                      key={j}
                      class="word"
                      role="button"
                      tabIndex={0}
                      data-start={word.start}
                      onClick={() => playFrom(word)}
                      onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && playFrom(word)}
                    >
                      {word.text}
                    </span>
                  ))}
                </p>
              </div>
            ))}
          </section>
        ))}
      </section>
    </article>
  );
}
