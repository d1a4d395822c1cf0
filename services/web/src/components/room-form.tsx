// Create or edit a room: every field POST /v1/rooms and PATCH /v1/rooms/{id} take, each 422 message
// next to the field it names. Editing a saved room adds its calendar feed's sync status with "Sync
// now", and the webhook test with its result.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Schemas } from "@scribe/client";
import { api, describeError } from "../api";
import { fieldErrors } from "../form-errors";

type Room = Schemas["RoomDetails"];

/** The form's values: CreateRoom's fields, with the feed interval in minutes (what the API takes for 1–60). */
interface RoomFields {
  name: string;
  platform: "whereby" | "daily";
  room_mode: string;
  recording_type: string;
  recording_trigger: string;
  skip_consent: boolean;
  store_video: boolean;
  is_locked: boolean;
  is_shared: boolean;
  ics_url: string;
  ics_enabled: boolean;
  ics_fetch_minutes: number;
  webhook_url: string;
  webhook_secret: string;
  zulip_auto_post: boolean;
  zulip_stream: string;
  zulip_topic: string;
  email_transcript_to: string;
}

const NEW_ROOM: RoomFields = {
  name: "",
  platform: "daily",
  room_mode: "normal",
  recording_type: "cloud",
  recording_trigger: "automatic-2nd-participant",
  skip_consent: false,
  store_video: false,
  is_locked: false,
  is_shared: false,
  ics_url: "",
  ics_enabled: false,
  ics_fetch_minutes: 5,
  webhook_url: "",
  webhook_secret: "",
  zulip_auto_post: false,
  zulip_stream: "",
  zulip_topic: "",
  email_transcript_to: "",
};

function fieldsOf(room: Room): RoomFields {
  return {
    name: room.name,
    platform: room.platform === "whereby" ? "whereby" : "daily",
    room_mode: room.room_mode,
    recording_type: room.recording_type,
    recording_trigger: room.recording_trigger,
    skip_consent: room.skip_consent ?? false,
    store_video: room.store_video ?? false,
    is_locked: room.is_locked,
    is_shared: room.is_shared,
    ics_url: room.ics_url ?? "",
    ics_enabled: room.ics_enabled ?? false,
    ics_fetch_minutes: Math.min(60, Math.max(1, Math.round((room.ics_fetch_interval ?? 300) / 60))),
    webhook_url: room.webhook_url ?? "",
    webhook_secret: room.webhook_secret ?? "",
    zulip_auto_post: room.zulip_auto_post,
    zulip_stream: room.zulip_stream,
    zulip_topic: room.zulip_topic,
    email_transcript_to: room.email_transcript_to ?? "",
  };
}

function bodyOf(f: RoomFields): Schemas["CreateRoom"] {
  const { ics_fetch_minutes, ...rest } = f;
  return { ...rest, ics_url: f.ics_url || null, ics_fetch_interval: ics_fetch_minutes, email_transcript_to: f.email_transcript_to || null };
}

export function RoomForm(props: { room: Room | null; onSaved: (room: Room) => void; onCancel: () => void }) {
  const [fields, setFields] = useState<RoomFields>(props.room ? fieldsOf(props.room) : NEW_ROOM);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [config, setConfig] = useState<Schemas["ConfigResponse"] | null>(null);
  const [streams, setStreams] = useState<string[]>([]);

  useEffect(() => {
    void api.GET("/v1/config").then(({ data }) => {
      setConfig(data ?? null);
      if (data?.zulip_enabled) void api.GET("/v1/zulip/streams").then(({ data: s }) => setStreams((s ?? []).map((x) => x.name)));
    });
  }, []);

  const set = <K extends keyof RoomFields>(key: K, value: RoomFields[K]) => setFields((f) => ({ ...f, [key]: value }));

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    const body = bodyOf(fields);
    const { data, error } = props.room
      ? await api.PATCH("/v1/rooms/{room_id}", { params: { path: { room_id: props.room.id } }, body })
      : await api.POST("/v1/rooms", { body: { ...body, webhook_url: body.webhook_url ?? "", webhook_secret: body.webhook_secret ?? "" } });
    setBusy(false);
    if (!data) {
      const byField = fieldErrors(error);
      return setErrors(Object.keys(byField).length ? byField : { "": describeError(error) });
    }
    props.onSaved({ webhook_url: body.webhook_url ?? null, webhook_secret: null, ...data });
  }

  const text = (key: keyof RoomFields, label: string, extra: Record<string, unknown> = {}, hint?: string) => (
    <Field name={key} label={label} error={errors[key]} hint={hint}>
      <input
        id={`room-${key}`}
        name={key}
        value={fields[key] as string}
        aria-invalid={errors[key] ? true : undefined}
        aria-describedby={errors[key] || hint ? `${key}-help` : undefined}
        onInput={(e) => set(key, e.currentTarget.value as never)}
        {...extra}
      />
    </Field>
  );
  const toggle = (key: keyof RoomFields, label: string, invert = false) => (
    <div class="field">
      <label>
        <input
          type="checkbox"
          role="switch"
          name={key}
          checked={invert ? !fields[key] : Boolean(fields[key])}
          aria-invalid={errors[key] ? true : undefined}
          aria-describedby={errors[key] ? `${key}-help` : undefined}
          onChange={(e) => set(key, (invert ? !e.currentTarget.checked : e.currentTarget.checked) as never)}
        />
        {label}
      </label>
      {errors[key] && (
        <small id={`${key}-help`} class="field-error">
          {errors[key]}
        </small>
      )}
    </div>
  );
  const select = (key: keyof RoomFields, label: string, options: [string, string][]) => (
    <Field name={key} label={label} error={errors[key]}>
      <select
        id={`room-${key}`}
        name={key}
        aria-describedby={errors[key] ? `${key}-help` : undefined}
        value={fields[key] as string}
        aria-invalid={errors[key] ? true : undefined}
        onChange={(e) => set(key, e.currentTarget.value as never)}
      >
        {options.map(([value, text]) => (
          <option value={value} key={value}>
            {text}
          </option>
        ))}
      </select>
    </Field>
  );

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      {text("name", "Name", { required: true, autocomplete: "off" }, `The room's address: ${location.origin}/${fields.name || "<name>"}`)}
      <fieldset>
        <legend>Meeting</legend>
        <div class="grid">
          {select("platform", "Video platform", [
            ["daily", "Daily"],
            ["whereby", "Whereby"],
          ])}
          {select("room_mode", "Room size", [
            ["normal", "Normal (up to 4 people)"],
            ["group", "Group"],
          ])}
        </div>
        <div class="grid">
          {select("recording_type", "Recording", [
            ["cloud", "Cloud (recorded and transcribed)"],
            ["local", "Local (participants record)"],
            ["none", "None"],
          ])}
          {select("recording_trigger", "Recording starts", [
            ["automatic-2nd-participant", "When a second person joins"],
            ["automatic", "When the meeting starts"],
            ["prompt", "When someone presses record"],
            ["none", "Never automatically"],
          ])}
        </div>
        {toggle("skip_consent", "Ask participants for consent to record", true)}
        {toggle("store_video", "Keep the video, not only the audio")}
        {toggle("is_locked", "Locked (guests knock to enter)")}
        {toggle("is_shared", "Shared (every user sees the room and its transcripts)")}
      </fieldset>
      <fieldset>
        <legend>Calendar</legend>
        {text("ics_url", "ICS calendar URL", { type: "url", placeholder: "https://calendar.example.com/team.ics" })}
        <div class="grid">
          {toggle("ics_enabled", "Sync this calendar")}
          <Field name="ics_fetch_interval" label="Sync every (minutes)" error={errors.ics_fetch_interval}>
            <input
              id="room-ics_fetch_interval"
              type="number"
              name="ics_fetch_interval"
              aria-describedby={errors.ics_fetch_interval ? "ics_fetch_interval-help" : undefined}
              min={1}
              max={60}
              value={fields.ics_fetch_minutes}
              aria-invalid={errors.ics_fetch_interval ? true : undefined}
              onInput={(e) => set("ics_fetch_minutes", Number(e.currentTarget.value))}
            />
          </Field>
        </div>
        {props.room && <IcsStatus room={props.room} />}
      </fieldset>
      <fieldset>
        <legend>Webhook</legend>
        {text("webhook_url", "Webhook URL", { type: "url", placeholder: "https://example.com/hooks/scribe" })}
        {text(
          "webhook_secret",
          "Webhook secret",
          { type: "password", autocomplete: "off" },
          "Signs every call. Leave empty to have one generated.",
        )}
        {props.room && <WebhookTest room={props.room} />}
      </fieldset>
      <fieldset>
        <legend>Sharing</legend>
        {toggle("zulip_auto_post", "Post transcripts to Zulip")}
        {config && !config.zulip_enabled && <small>Zulip is not configured on this server.</small>}
        <div class="grid">
          {text("zulip_stream", "Zulip stream", { list: "zulip-streams" })}
          {text("zulip_topic", "Zulip topic")}
        </div>
        <datalist id="zulip-streams">
          {streams.map((s) => (
            <option value={s} key={s} />
          ))}
        </datalist>
        {text(
          "email_transcript_to",
          "E-mail transcripts to",
          { type: "email", placeholder: "team@example.com" },
          config && !config.email_enabled ? "E-mail is not configured on this server." : undefined,
        )}
      </fieldset>
      {errors[""] && <p role="alert">{errors[""]}</p>}
      <footer>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="submit" aria-busy={busy} disabled={busy}>
          {props.room ? "Save" : "Create room"}
        </button>
      </footer>
    </form>
  );
}

/** A field's label, its control, and the API's message for it (or a hint) below, which the control names as its description. */
function Field(props: { name: string; label: string; error?: string | undefined; hint?: string | undefined; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={`room-${props.name}`}>{props.label}</label>
      {props.children}
      {(props.error ?? props.hint) && (
        <small id={`${props.name}-help`} class={props.error ? "field-error" : undefined}>
          {props.error ?? props.hint}
        </small>
      )}
    </div>
  );
}

function IcsStatus({ room }: { room: Room }) {
  const [status, setStatus] = useState<Schemas["ICSStatus"] | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const path = { params: { path: { room_name: room.name } } };

  const load = () => api.GET("/v1/rooms/{room_name}/ics/status", path).then(({ data }) => setStatus(data ?? null));
  useEffect(() => void load(), [room.name]);

  async function syncNow() {
    setBusy(true);
    const { data, error } = await api.POST("/v1/rooms/{room_name}/ics/sync", path);
    setBusy(false);
    setResult(data ? describeSync(data) : describeError(error));
    await load();
  }

  return (
    <div class="ics-status" data-testid="ics-status">
      <p>
        {!status
          ? "Loading sync status…"
          : status.status === "disabled"
            ? "Calendar sync is off."
            : status.last_sync
              ? `Last synced ${new Date(status.last_sync).toLocaleString()}${status.next_sync ? `, next ${new Date(status.next_sync).toLocaleString()}` : ""} · ${status.events_count} event${status.events_count === 1 ? "" : "s"}`
              : "Not synced yet."}
      </p>
      <button type="button" class="outline" aria-busy={busy} disabled={busy || status?.status !== "enabled"} onClick={() => void syncNow()}>
        Sync now
      </button>
      {result && <p role="status">{result}</p>}
    </div>
  );
}

function describeSync(r: Schemas["ICSSyncResult"]): string {
  if (r.status === "skipped") return `Skipped: ${r.reason ?? "not time to sync yet"}`;
  if (r.status === "error") return `Sync failed: ${r.error ?? "unknown error"}`;
  return `Synced: ${r.events_found} event${r.events_found === 1 ? "" : "s"} for this room (${r.events_created} new, ${r.events_updated} updated, ${r.events_deleted} removed)`;
}

function WebhookTest({ room }: { room: Room }) {
  const [result, setResult] = useState<Schemas["WebhookTestResult"] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function test() {
    setBusy(true);
    setFailure(null);
    const { data, error } = await api.POST("/v1/rooms/{room_id}/webhook/test", { params: { path: { room_id: room.id } } });
    setBusy(false);
    setResult(data ?? null);
    if (!data) setFailure(describeError(error));
  }

  return (
    <div data-testid="webhook-test">
      <button type="button" class="outline" aria-busy={busy} disabled={busy || !room.webhook_url} onClick={() => void test()}>
        Test webhook
      </button>{" "}
      <small>{room.webhook_url ? "Sends a test call to the saved URL." : "Save a webhook URL to test it."}</small>
      {failure && <p role="alert">{failure}</p>}
      {result && (
        <article role="status" class={result.success ? "result-ok" : "result-failed"}>
          <strong>{result.success ? "Webhook test succeeded" : "Webhook test failed"}</strong>
          {result.status_code != null && <span> · HTTP {result.status_code}</span>}
          {(result.error || result.message) && <p>{result.error || result.message}</p>}
          {result.response_preview && (
            <details>
              <summary>Response</summary>
              <pre>{result.response_preview}</pre>
            </details>
          )}
        </article>
      )}
    </div>
  );
}
