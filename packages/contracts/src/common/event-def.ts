// How an event type is declared: its data schema, its stream and how its subject is built.
import type { z } from "@hono/zod-openapi";
import { STREAMS, type StreamName } from "./streams";

export interface EventDef<T extends string = string, S extends z.ZodType = z.ZodType> {
  type: T;
  stream: StreamName;
  version: number;
  data: S;
  aggregateId: (data: z.infer<S>) => string;
}

export function defineEvent<T extends string, S extends z.ZodType>(def: EventDef<T, S>): EventDef<T, S> {
  return def;
}

/** NATS subject tokens may not contain '.', '*', '>' or whitespace. */
export function subjectToken(value: string): string {
  return value.replace(/[.*>\s]/g, "_") || "_";
}

/**
 * `<context>.<event>.<aggregate id>` with the event type as ONE token (dots → underscores), e.g.
 * `transcripts.transcript_topic_upserted.<uuid>` (unprefixed). Three tokens always, so
 * `transcripts.*.<id>` selects one aggregate's events and `transcripts.transcript_updated.*` one type.
 */
export function eventSubject(def: Pick<EventDef, "stream" | "type">, aggregateId: string): string {
  return `${STREAMS[def.stream].context}.${eventToken(def.type)}.${subjectToken(aggregateId)}`;
}
export function eventToken(type: string): string {
  return subjectToken(type);
}

export function dataSchemaUri(def: Pick<EventDef, "type" | "version">): string {
  return `urn:scribe:event:${def.type}:v${def.version}`;
}
