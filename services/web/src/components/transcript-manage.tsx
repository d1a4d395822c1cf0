// The owner's controls: who may read the transcript, downloads, reprocess, and delete (to the trash).
// Downloads: the mp3 is saved from its address with a fresh media token (audio-link.ts), streamed to
// disk; the zip and the text formats need the Authorization header, so they are fetched and saved.
import { useState } from "preact/hooks";
import type { Schemas } from "@scribe/client";
import { api, describeError } from "../api";
import { audioUrl } from "./audio-link";
import { saveFile, saveUrl, useConfirm } from "./confirm";

type ShareMode = NonNullable<Schemas["UpdateTranscript"]["share_mode"]>;
type Format = "text" | "text-timestamped" | "webvtt-named" | "json";

const SHARE_MODES: { value: ShareMode; label: string }[] = [
  { value: "private", label: "Only me" },
  { value: "semi-private", label: "Anyone signed in" },
  { value: "public", label: "Anyone with the link" },
];
const FORMATS: { format: Format; label: string; type: string; extension: string }[] = [
  { format: "text", label: "Text", type: "text/plain", extension: "txt" },
  { format: "text-timestamped", label: "Text with timestamps", type: "text/plain", extension: "txt" },
  { format: "webvtt-named", label: "Subtitles (WebVTT)", type: "text/vtt", extension: "vtt" },
  { format: "json", label: "Segments (JSON)", type: "application/json", extension: "json" },
];

/** Closes the dropdown a chosen item is in (Pico's dropdown is a <details>). */
const closeMenu = (item: HTMLElement) => item.closest("details")?.removeAttribute("open");

interface Props {
  id: string;
  title: string;
  shareMode: string;
  hasAudio: boolean;
  onShareMode: (mode: ShareMode) => void;
  onReprocess: () => void;
  onDeleted: () => void;
}

export function TranscriptManage({ id, title, shareMode, hasAudio, onShareMode, onReprocess, onDeleted }: Props) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirmation, confirm] = useConfirm();
  const path = { params: { path: { transcript_id: id } } };
  const fileName = (title.trim() || `transcript_${id.split("-")[0]}`).replace(/[^\p{L}\p{N} _.-]+/gu, "_");

  async function act(name: string, action: () => Promise<{ error?: unknown }>): Promise<boolean> {
    setBusy(name);
    const { error: failure } = await action();
    setBusy(null);
    setError(failure ? describeError(failure) : null);
    return !failure;
  }

  async function share(mode: ShareMode) {
    if (await act("share", () => api.PATCH("/v1/transcripts/{transcript_id}", { ...path, body: { share_mode: mode } }))) onShareMode(mode);
  }

  async function downloadFormat({ format, type, extension }: (typeof FORMATS)[number]) {
    await act("download", async () => {
      const { data, error: failure } = await api.GET("/v1/transcripts/{transcript_id}", {
        params: { ...path.params, query: { transcript_format: format } },
      });
      if (data)
        saveFile(
          new Blob([typeof data.transcript === "string" ? data.transcript : JSON.stringify(data.transcript, null, 2)], { type }),
          `${fileName}.${extension}`,
        );
      return { error: failure };
    });
  }

  async function downloadZip() {
    await act("download", async () => {
      const { data, error: failure } = await api.GET("/v1/transcripts/{transcript_id}/download/zip", { ...path, parseAs: "blob" });
      if (data) saveFile(data, `${fileName}.zip`);
      return { error: failure };
    });
  }

  async function downloadAudio() {
    await act("download", async () => {
      const link = await audioUrl(id);
      if ("url" in link) saveUrl(link.url, `${fileName}.mp3`);
      return "error" in link ? { error: { detail: link.error } } : {};
    });
  }

  async function reprocess() {
    const yes = await confirm({
      title: "Reprocess this transcript?",
      body: "The recording is transcribed again: the words, topics and summaries are replaced by the new run's. Speaker names you gave stay.",
      confirm: "Reprocess",
    });
    if (yes && (await act("reprocess", () => api.POST("/v1/transcripts/{transcript_id}/process", path)))) onReprocess();
  }

  async function remove() {
    const yes = await confirm({
      title: "Delete this transcript?",
      body: "It moves to the trash, where you can restore it.",
      confirm: "Delete",
    });
    if (yes && (await act("delete", () => api.DELETE("/v1/transcripts/{transcript_id}", path)))) onDeleted();
  }

  return (
    <section class="manage" aria-label="Manage this transcript">
      {confirmation}
      <label>
        Who can read it
        <select
          name="share_mode"
          value={shareMode}
          aria-busy={busy === "share"}
          onChange={(e) => void share(e.currentTarget.value as ShareMode)}
        >
          {SHARE_MODES.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <details class="dropdown">
        <summary aria-busy={busy === "download"}>Download</summary>
        <ul>
          {hasAudio && (
            <li>
              <a
                href="#"
                onClick={(e) => {
                  e.preventDefault();
                  closeMenu(e.currentTarget);
                  void downloadAudio();
                }}
              >
                Audio (mp3)
              </a>
            </li>
          )}
          <li>
            <a
              href="#"
              onClick={(e) => {
                e.preventDefault();
                closeMenu(e.currentTarget);
                void downloadZip();
              }}
            >
              Everything (zip)
            </a>
          </li>
          {FORMATS.map((f) => (
            <li key={f.format}>
              <a
                href="#"
                onClick={(e) => {
                  e.preventDefault();
                  closeMenu(e.currentTarget);
                  void downloadFormat(f);
                }}
              >
                {f.label}
              </a>
            </li>
          ))}
        </ul>
      </details>
      <div role="group">
        <button type="button" class="secondary" aria-busy={busy === "reprocess"} onClick={() => void reprocess()}>
          Reprocess
        </button>
        <button type="button" class="contrast" aria-busy={busy === "delete"} onClick={() => void remove()}>
          Delete
        </button>
      </div>
      {error && (
        <p role="alert" class="manage-error">
          {error}
        </p>
      )}
    </section>
  );
}
