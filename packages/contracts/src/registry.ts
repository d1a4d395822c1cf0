// The event registry: every event type Scribe publishes, with its data schema and stream.
// Each area lists its events in its own file; add the list here.
import { v7 as uuidv7 } from "uuid";
import type { z } from "@hono/zod-openapi";
import { CloudEventSchema, type CloudEvent } from "./common/envelope";
import { dataSchemaUri, eventSubject, type EventDef } from "./common/event-def";
import { calendarEvents } from "./calendar/events";
import { meetingEvents } from "./meetings/events";
import { recordingAvailableEvents, recordingEvents } from "./recordings/events";
import { retentionEvents } from "./transcripts/retention-events";
import { roomEvents } from "./rooms/events";
import { transcriptEvents } from "./transcripts/events";

export const EVENT_DEFS = [
  ...roomEvents,
  ...recordingAvailableEvents,
  ...recordingEvents,
  ...transcriptEvents,
  ...meetingEvents,
  ...retentionEvents,
  ...calendarEvents,
] as const;

type AnyDef = (typeof EVENT_DEFS)[number];
export type EventType = AnyDef["type"];
type DefOf<T extends EventType> = Extract<AnyDef, { type: T }>;
export type EventData<T extends EventType> = z.infer<DefOf<T>["data"]>;
/** What a producer passes: fields with defaults may be left out. */
export type EventInput<T extends EventType> = z.input<DefOf<T>["data"]>;
export type ScribeEvent<T extends EventType = EventType> = T extends EventType ? CloudEvent<EventData<T>> & { type: T } : never;

const byType = new Map<string, EventDef>(EVENT_DEFS.map((d) => [d.type, d as unknown as EventDef]));

export function eventDef<T extends EventType>(type: T): DefOf<T> {
  const def = byType.get(type);
  if (!def) throw new Error(`unknown event type ${type}`);
  return def as unknown as DefOf<T>;
}
export function isKnownEventType(type: string): type is EventType {
  return byType.has(type);
}

export interface OutgoingEvent<E extends CloudEvent = CloudEvent> {
  event: E;
  /** Unprefixed subject; the publisher adds the deployment's prefix. */
  subject: string;
}

/**
 * Build a validated envelope for `type` (data parsed by its schema; id is a UUIDv7). `time` is the
 * emitter's clock reading (a service's `rt.clock()`), never read here, so tests can move it.
 */
export function makeEvent<T extends EventType>(
  type: T,
  data: EventInput<T>,
  opts: { source: string; time: Date; id?: string },
): OutgoingEvent<ScribeEvent<T>> {
  const def = byType.get(type)!;
  const parsed = def.data.parse(data);
  const subject = def.aggregateId(parsed);
  const event: CloudEvent = {
    specversion: "1.0",
    id: opts.id ?? uuidv7(),
    source: opts.source,
    type,
    subject,
    time: opts.time.toISOString(),
    datacontenttype: "application/json",
    dataschema: dataSchemaUri(def),
    data: parsed,
  };
  return { event: event as ScribeEvent<T>, subject: eventSubject(def, subject) };
}

export class InvalidEventError extends Error {
  constructor(
    message: string,
    readonly eventId: string | null,
  ) {
    super(message);
    this.name = "InvalidEventError";
  }
}

/** Parse raw bytes into a typed event; anything unknown or malformed is an InvalidEventError. */
export function parseEvent(raw: string | Uint8Array): ScribeEvent {
  let json: unknown;
  try {
    json = JSON.parse(typeof raw === "string" ? raw : new TextDecoder().decode(raw));
  } catch {
    throw new InvalidEventError("event is not valid JSON", null);
  }
  const envelope = CloudEventSchema.safeParse(json);
  const id = typeof (json as { id?: unknown })?.id === "string" ? (json as { id: string }).id : null;
  if (!envelope.success) {
    throw new InvalidEventError(`invalid CloudEvents envelope: ${summarize(envelope.error)}`, id);
  }
  const def = byType.get(envelope.data.type);
  if (!def) throw new InvalidEventError(`unknown event type ${envelope.data.type}`, id);
  const data = def.data.safeParse(envelope.data.data);
  if (!data.success) {
    throw new InvalidEventError(`invalid data for ${def.type}: ${summarize(data.error)}`, id);
  }
  return { ...envelope.data, data: data.data } as ScribeEvent;
}

function summarize(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
}
