// Transcripts: full-text search with highlighted snippets, kind and room filters, the trash view
// with restore, and pagination — all through GET /v1/transcripts/search (an empty query lists newest first).
import { useEffect, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import type { Schemas } from "@scribe/client";
import { api, describeError } from "../api";
import { Highlighted } from "../highlight";
import { useLiveStatuses } from "../live-statuses";

const PAGE_SIZE = 20;
type Kind = Schemas["SourceKind"] | "";

export function TranscriptList() {
  const [query, setQuery] = useState("");
  const [submitted, setSubmitted] = useState("");
  const [kind, setKind] = useState<Kind>("");
  const [roomId, setRoomId] = useState("");
  const [trash, setTrash] = useState(false);
  const [offset, setOffset] = useState(0);
  const [rooms, setRooms] = useState<Schemas["Room"][]>([]);
  const [page, setPage] = useState<Schemas["SearchResponse"] | null>(null);
  // The offset of the page on screen: `offset` moves on a click, the rows and their range only when the next page arrives.
  const [shownOffset, setShownOffset] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const liveStatus = useLiveStatuses(page?.results ?? [], () => setReload((n) => n + 1));

  useEffect(() => {
    void api.GET("/v1/rooms", { params: { query: { size: 100 } } }).then(({ data }) => setRooms(data?.items ?? []));
  }, []);

  useEffect(() => {
    let current = true;
    const q = {
      q: submitted,
      limit: PAGE_SIZE,
      offset,
      ...(kind ? { source_kind: kind } : {}),
      ...(roomId ? { room_id: roomId } : {}),
      ...(trash ? { include_deleted: true } : {}),
    };
    void api.GET("/v1/transcripts/search", { params: { query: q } }).then(({ data, error: failure }) => {
      if (!current) return;
      setError(data ? null : describeError(failure));
      setPage(data ?? null);
      setShownOffset(offset);
    });
    return () => {
      current = false;
    };
  }, [submitted, kind, roomId, trash, offset, reload]);

  async function restore(id: string) {
    const { error: failure } = await api.POST("/v1/transcripts/{transcript_id}/restore", { params: { path: { transcript_id: id } } });
    if (failure) return setError(describeError(failure));
    // Out of the trash now; the search index, which the list reads, follows a moment later.
    setPage((shown) => shown && { ...shown, results: shown.results.filter((t) => t.id !== id), total: shown.total - 1 });
  }

  return (
    <section>
      <h1>{trash ? "Trash" : "Transcripts"}</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setOffset(0);
          setSubmitted(query.trim());
        }}
      >
        <input
          type="search"
          name="q"
          aria-label="Search transcripts"
          placeholder='Search words, "phrases", -not'
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
        <select aria-label="Kind" value={kind} onChange={(e) => (setOffset(0), setKind(e.currentTarget.value as Kind))}>
          <option value="">All kinds</option>
          <option value="file">Uploads</option>
          <option value="room">Rooms</option>
          <option value="live">Live</option>
        </select>
        <select aria-label="Room" value={roomId} onChange={(e) => (setOffset(0), setRoomId(e.currentTarget.value))}>
          <option value="">All rooms</option>
          {rooms.map((r) => (
            <option value={r.id} key={r.id}>
              {r.name}
            </option>
          ))}
        </select>
        <button type="submit">Search</button>
      </form>
      <label>
        <input type="checkbox" role="switch" checked={trash} onChange={(e) => (setOffset(0), setTrash(e.currentTarget.checked))} />
        Show trash
      </label>
      {error && <p role="alert">{error}</p>}
      {page && page.results.length === 0 && <p>No transcripts.</p>}
      {page?.results.map((t) => (
        <article key={t.id} data-transcript-id={t.id}>
          <header>
            <Link href={`/transcripts/${t.id}`}>
              <strong>{t.title ? <Highlighted text={t.title} query={submitted} /> : "Untitled transcript"}</strong>
            </Link>{" "}
            <span class={`status status-${liveStatus[t.id] ?? t.status}`} data-status={liveStatus[t.id] ?? t.status}>
              {liveStatus[t.id] ?? t.status}
            </span>
          </header>
          <small>
            {new Date(t.created_at).toLocaleString()}
            {t.room_name ? ` · ${t.room_name}` : ""}
            {t.duration != null ? ` · ${formatDuration(t.duration / 1000)}` : ""}
            {` · ${t.source_kind}`}
          </small>
          {t.search_snippets.map((snippet, i) => (
            <p key={i} class="snippet">
              <Highlighted text={snippet} query={submitted} />
            </p>
          ))}
          {trash && (
            <button class="secondary" onClick={() => void restore(t.id)}>
              Restore
            </button>
          )}
        </article>
      ))}
      {page && page.total > PAGE_SIZE && (
        <nav aria-label="Pages" aria-busy={offset !== shownOffset}>
          <button class="outline" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
            Previous
          </button>{" "}
          <span>
            {shownOffset + 1}–{Math.min(shownOffset + PAGE_SIZE, page.total)} of {page.total}
            {page.total_capped ? "+" : ""}
          </span>{" "}
          <button
            class="outline"
            disabled={offset + PAGE_SIZE >= page.total && !page.total_capped}
            onClick={() => setOffset(offset + PAGE_SIZE)}
          >
            Next
          </button>
        </nav>
      )}
    </section>
  );
}

/** Seconds as h:mm:ss or m:ss. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}
