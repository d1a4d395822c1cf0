// A room's own page at /<room name>: finds the room, joins the meeting under way (or starts one) and
// embeds the video platform's room; asks for recording consent when the room wants it; lists the
// calendar's upcoming events, with "Join early" for an event whose meeting is already open.
import { useEffect, useRef, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import type { Schemas } from "@scribe/client";
import { api, describeError } from "../api";

type Room = Schemas["RoomDetails"];
type Meeting = Schemas["Meeting"];
type CalendarEvent = Schemas["CalendarEventResponse"];

/** The meeting to join on arrival: the newest open one that has started (calendar meetings open ~7 minutes early). */
function meetingUnderWay(meetings: Meeting[], now: number): Meeting | null {
  return meetings.find((m) => Date.parse(m.start_date) <= now) ?? null;
}

export function RoomPage({ name }: { name: string }) {
  const [room, setRoom] = useState<Room | null>(null);
  const [meeting, setMeeting] = useState<Meeting | null>(null);
  const [openMeetings, setOpenMeetings] = useState<Meeting[]>([]);
  const [upcoming, setUpcoming] = useState<CalendarEvent[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [notFound, setNotFound] = useState(false);
  const [consent, setConsent] = useState<"asking" | "given" | "refused" | null>(null);
  const roomPath = { params: { path: { room_name: name } } };

  async function join(target: Meeting) {
    const { data, error: failure } = await api.POST("/v1/rooms/{room_name}/meetings/{meeting_id}/join", {
      params: { path: { room_name: name, meeting_id: target.id } },
    });
    if (!data) return setError(describeError(failure));
    setMeeting(data);
  }

  useEffect(() => {
    let current = true;
    void (async () => {
      const found = await api.GET("/v1/rooms/name/{room_name}", roomPath);
      if (!current) return;
      if (!found.data) return found.response.status === 404 ? setNotFound(true) : setError(describeError(found.error));
      setRoom(found.data);
      const [active, events] = await Promise.all([
        api.GET("/v1/rooms/{room_name}/meetings/active", roomPath),
        api.GET("/v1/rooms/{room_name}/meetings/upcoming", roomPath),
      ]);
      if (!current) return;
      setOpenMeetings(active.data ?? []);
      setUpcoming(events.data ?? []);
      let target = meetingUnderWay(active.data ?? [], Date.now());
      if (!target) {
        const created = await api.POST("/v1/rooms/{room_name}/meeting", { ...roomPath, body: {} });
        if (!current) return;
        if (!created.data) return setError(describeError(created.error));
        target = created.data;
      }
      await join(target);
      if (current && !found.data.skip_consent && found.data.recording_type === "cloud") setConsent("asking");
    })();
    return () => {
      current = false;
    };
  }, [name]);

  async function answerConsent(given: boolean) {
    if (!meeting) return;
    const { error: failure } = await api.POST("/v1/meetings/{meeting_id}/consent", {
      params: { path: { meeting_id: meeting.id } },
      body: { consent_given: given },
    });
    if (failure) return setError(describeError(failure));
    setConsent(given ? "given" : "refused");
  }

  if (notFound)
    return (
      <section>
        <h1>No room called “{name}”</h1>
        <p>
          Check the link, or see the <Link href="/rooms">rooms</Link> you can use.
        </p>
      </section>
    );

  return (
    <section class="room-page">
      <hgroup>
        <h1>{name}</h1>
        <p>
          {consent === "given" && "You agreed to this meeting being recorded and transcribed."}
          {consent === "refused" && "You declined recording: the meeting's audio will be deleted after transcription."}
          {room?.recording_type === "none" && "This room is not recorded."}
        </p>
      </hgroup>
      {error && <p role="alert">{error}</p>}
      {meeting ? (
        <iframe
          class="meeting-frame"
          title={`Video meeting in ${name}`}
          src={meeting.room_url}
          allow="camera; microphone; fullscreen; speaker; display-capture; autoplay; compute-pressure"
        />
      ) : (
        !error && <p aria-busy="true">Joining the meeting…</p>
      )}
      <UpcomingEvents events={upcoming} meetings={openMeetings} current={meeting} onJoin={(m) => void join(m)} />
      {consent === "asking" && <ConsentDialog onAnswer={(given) => void answerConsent(given)} />}
    </section>
  );
}

function UpcomingEvents(props: { events: CalendarEvent[]; meetings: Meeting[]; current: Meeting | null; onJoin: (m: Meeting) => void }) {
  const now = Date.now();
  return (
    <section>
      <h2>Upcoming</h2>
      {props.events.length === 0 && <p>No calendar events in the next two hours.</p>}
      {props.events.map((event) => {
        const opened = props.meetings.find((m) => m.calendar_event_id === event.id);
        const early = Date.parse(event.start_time) > now;
        return (
          <article key={event.id} data-event-id={event.id}>
            <strong>{event.title || "Untitled event"}</strong>
            <br />
            <small>
              {formatTime(event.start_time)} – {formatTime(event.end_time)}
              {early ? ` · starts ${relativeMinutes(Date.parse(event.start_time) - now)}` : " · under way"}
            </small>
            <footer>
              {opened ? (
                props.current?.id === opened.id ? (
                  <small>You are in this meeting.</small>
                ) : (
                  <button onClick={() => props.onJoin(opened)}>{early ? "Join early" : "Join"}</button>
                )
              ) : (
                <small>Its meeting opens a few minutes before the start.</small>
              )}
            </footer>
          </article>
        );
      })}
    </section>
  );
}

function ConsentDialog({ onAnswer }: { onAnswer: (given: boolean) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    // Escape does not dismiss it: the question needs an answer.
    <dialog ref={dialog} aria-labelledby="consent-title" onCancel={(e) => e.preventDefault()}>
      <article>
        <h2 id="consent-title">This meeting is recorded</h2>
        <p>Its audio is recorded and transcribed. Do you agree to your voice being recorded?</p>
        <footer>
          <button class="secondary" onClick={() => onAnswer(false)}>
            No, don't keep my audio
          </button>
          <button onClick={() => onAnswer(true)}>Yes, I agree</button>
        </footer>
      </article>
    </dialog>
  );
}

const formatTime = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

function relativeMinutes(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  return minutes < 60 ? `in ${minutes} min` : `in ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
