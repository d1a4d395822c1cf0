// Speakers and participants: rename a speaker, add and remove participants, and merge one speaker's
// words into another's (PATCH …/speaker/merge). Owners edit; everyone else sees the names.
import { useState } from "preact/hooks";
import type { Schemas } from "@scribe/client";
import { api, describeError } from "../api";
import { useConfirm } from "./confirm";

type Participant = Schemas["Participant"];

interface Props {
  transcriptId: string;
  participants: Participant[];
  /** Speaker numbers that have words or a participant. */
  speakers: number[];
  editable: boolean;
  /** Something changed on the server: reload participants (and words, after a merge). */
  onChanged: (what: { words: boolean }) => void;
}

export function speakerName(speaker: number, participants: Participant[]): string {
  return participants.find((p) => p.speaker === speaker)?.name ?? `Speaker ${speaker}`;
}

export function Speakers({ transcriptId, participants, speakers, editable, onChanged }: Props) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirmation, confirm] = useConfirm();
  const transcript = { transcript_id: transcriptId };

  async function run(action: () => Promise<{ error?: unknown }>, words = false) {
    setBusy(true);
    const { error: failure } = await action();
    setBusy(false);
    setError(failure ? describeError(failure) : null);
    if (!failure) onChanged({ words });
  }

  function rename(participant: Participant, name: string) {
    if (!name.trim() || name.trim() === participant.name) return;
    void run(() =>
      api.PATCH("/v1/transcripts/{transcript_id}/participants/{participant_id}", {
        params: { path: { ...transcript, participant_id: participant.id } },
        body: { name: name.trim(), speaker: participant.speaker },
      }),
    );
  }

  async function remove(participant: Participant) {
    const yes = await confirm({
      title: `Remove ${participant.name}?`,
      body: "The participant is removed from this transcript. Their words stay, shown under the speaker's number.",
      confirm: "Remove",
    });
    if (yes)
      await run(() =>
        api.DELETE("/v1/transcripts/{transcript_id}/participants/{participant_id}", {
          params: { path: { ...transcript, participant_id: participant.id } },
        }),
      );
  }

  function add(form: HTMLFormElement) {
    const data = new FormData(form);
    const name = String(data.get("name") ?? "").trim();
    const speaker = String(data.get("speaker") ?? "");
    if (!name) return setError("Give the participant a name.");
    void run(async () => {
      const result = await api.POST("/v1/transcripts/{transcript_id}/participants", {
        params: { path: transcript },
        body: { name, speaker: speaker === "" ? null : Number(speaker) },
      });
      if (!result.error) form.reset();
      return result;
    });
  }

  async function merge(form: HTMLFormElement) {
    const data = new FormData(form);
    const from = Number(data.get("speaker_from"));
    const to = Number(data.get("speaker_to"));
    if (from === to) return setError("Choose two different speakers to merge.");
    const yes = await confirm({
      title: "Merge speakers?",
      body: `Every word of ${speakerName(from, participants)} becomes ${speakerName(to, participants)}'s. This cannot be undone here.`,
      confirm: "Merge",
    });
    if (yes)
      await run(
        () =>
          api.PATCH("/v1/transcripts/{transcript_id}/speaker/merge", {
            params: { path: transcript },
            body: { speaker_from: from, speaker_to: to },
          }),
        true,
      );
  }

  const unnamed = speakers.filter((s) => !participants.some((p) => p.speaker === s));
  const option = (s: number) => (
    <option key={s} value={s}>
      {speakerName(s, participants)}
      {participants.some((p) => p.speaker === s) ? ` (speaker ${s})` : ""}
    </option>
  );

  return (
    <details class="speakers">
      <summary>Speakers</summary>
      {confirmation}
      {error && <p role="alert">{error}</p>}
      {participants.length === 0 && speakers.length === 0 && <p>No speakers or participants yet.</p>}
      {!editable && (
        <ul>
          {participants.map((p) => (
            <li key={p.id}>
              {p.name}
              {p.speaker != null && <small> · speaker {p.speaker}</small>}
            </li>
          ))}
          {unnamed.map((s) => (
            <li key={s}>Speaker {s}</li>
          ))}
        </ul>
      )}
      {editable && (
        <>
          {participants.map((p) => (
            <div class="participant" key={p.id}>
              <label>
                {p.speaker != null ? `Speaker ${p.speaker}` : "Participant without a speaker"}
                <input
                  name={`participant-${p.id}`}
                  defaultValue={p.name}
                  onBlur={(e) => rename(p, e.currentTarget.value)}
                  onKeyDown={(e) => e.key === "Enter" && rename(p, e.currentTarget.value)}
                />
              </label>
              <button type="button" class="secondary outline" aria-label={`Remove ${p.name}`} onClick={() => void remove(p)}>
                Remove
              </button>
            </div>
          ))}
          {unnamed.length > 0 && (
            <p>
              <small>Unnamed: {unnamed.map((s) => `Speaker ${s}`).join(", ")}. Name one by adding a participant with its number.</small>
            </p>
          )}
          <form
            class="add-participant"
            aria-label="Add a participant"
            onSubmit={(e) => {
              e.preventDefault();
              add(e.currentTarget);
            }}
          >
            <fieldset role="group">
              <input name="name" placeholder="Name" aria-label="New participant's name" />
              <select name="speaker" aria-label="Their speaker in the recording">
                <option value="">No speaker</option>
                {unnamed.map((s) => (
                  <option key={s} value={s}>
                    Speaker {s}
                  </option>
                ))}
              </select>
              <button type="submit" aria-busy={busy}>
                Add participant
              </button>
            </fieldset>
          </form>
          {speakers.length > 1 && (
            <form
              class="merge"
              aria-label="Merge two speakers"
              onSubmit={(e) => {
                e.preventDefault();
                void merge(e.currentTarget);
              }}
            >
              <fieldset role="group">
                <select name="speaker_from" aria-label="Move the words of" defaultValue={String(speakers[speakers.length - 1])}>
                  {speakers.map(option)}
                </select>
                <select name="speaker_to" aria-label="to" defaultValue={String(speakers[0])}>
                  {speakers.map(option)}
                </select>
                <button type="submit" class="secondary" aria-busy={busy}>
                  Merge
                </button>
              </fieldset>
            </form>
          )}
        </>
      )}
    </details>
  );
}
