// Rooms: the caller's rooms and the shared ones (GET /v1/rooms, paginated as the API is), created and
// edited in a dialog holding the room form, deleted after a confirmation.
import { useEffect, useRef, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import type { Schemas } from "@scribe/client";
import { api, describeError } from "../api";
import { ConfirmDialog } from "../components/confirm-dialog";
import { RoomForm } from "../components/room-form";
import { whoAmI } from "../me";
import { roomPath } from "../room-paths";

type Room = Schemas["RoomDetails"];
const PAGE_SIZE = 20;

const RECORDING: Record<string, string> = { cloud: "recorded", local: "recorded locally", none: "not recorded" };

export function Rooms() {
  const [page, setPage] = useState(1);
  const [rooms, setRooms] = useState<Schemas["Page_RoomDetails_"] | null>(null);
  const [me, setMe] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  /** The room being edited; `null` = a new room; undefined = no dialog. */
  const [editing, setEditing] = useState<Room | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<Room | null>(null);

  useEffect(() => {
    void whoAmI().then(setMe);
  }, []);

  useEffect(() => {
    let current = true;
    void api.GET("/v1/rooms", { params: { query: { page, size: PAGE_SIZE } } }).then(({ data, error: failure }) => {
      if (!current) return;
      setError(data ? null : describeError(failure));
      setRooms(data ?? null);
    });
    return () => {
      current = false;
    };
  }, [page, reload]);

  async function remove(room: Room): Promise<string | null> {
    const { error: failure } = await api.DELETE("/v1/rooms/{room_id}", { params: { path: { room_id: room.id } } });
    if (failure) return describeError(failure);
    setReload((n) => n + 1);
    return null;
  }

  return (
    <section>
      <hgroup>
        <h1>Rooms</h1>
        <p>A room is a permanent meeting address; its meetings are recorded and transcribed.</p>
      </hgroup>
      <button onClick={() => setEditing(null)}>New room</button>
      {error && <p role="alert">{error}</p>}
      {rooms && rooms.items.length === 0 && <p>No rooms yet. Create one to get a meeting link.</p>}
      {rooms?.items.map((room) => (
        <article key={room.id} data-room-id={room.id}>
          <header>
            <Link href={roomPath(room.name)}>
              <strong>{room.name}</strong>
            </Link>{" "}
            {room.is_shared && <span class="status">shared</span>}
          </header>
          <small>
            {room.platform === "whereby" ? "Whereby" : "Daily"} · {RECORDING[room.recording_type] ?? room.recording_type}
            {room.skip_consent ? " without consent" : ""}
            {room.ics_enabled ? " · calendar synced" : ""}
            {room.webhook_url ? " · webhook" : ""}
          </small>
          {room.user_id === me && (
            <footer role="group">
              <button class="outline" onClick={() => setEditing(room)} aria-label={`Edit ${room.name}`}>
                Edit
              </button>
              <button class="outline secondary" onClick={() => setDeleting(room)} aria-label={`Delete ${room.name}`}>
                Delete
              </button>
            </footer>
          )}
        </article>
      ))}
      {rooms && rooms.pages > 1 && (
        <nav aria-label="Pages">
          <button class="outline" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>{" "}
          <span>
            Page {rooms.page} of {rooms.pages}
          </span>{" "}
          <button class="outline" disabled={page >= rooms.pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
      {editing !== undefined && (
        <RoomDialog
          room={editing}
          onClose={() => setEditing(undefined)}
          onSaved={() => {
            setEditing(undefined);
            setReload((n) => n + 1);
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete room ${deleting.name}?`}
          confirmLabel="Delete room"
          onConfirm={() => remove(deleting)}
          onClose={() => setDeleting(null)}
        >
          <p>Its meetings and calendar events are deleted. Its transcripts are kept.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function RoomDialog(props: { room: Room | null; onClose: () => void; onSaved: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} onClose={props.onClose} aria-labelledby="room-dialog-title">
      <article class="wide">
        <header>
          <h2 id="room-dialog-title">{props.room ? `Edit ${props.room.name}` : "New room"}</h2>
        </header>
        <RoomForm room={props.room} onSaved={props.onSaved} onCancel={() => dialog.current?.close()} />
      </article>
    </dialog>
  );
}
