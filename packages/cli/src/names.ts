// One name per thing (issue 19.6): the CLI shows streams, consumers and subjects by the names of
// @scribe/contracts and the metrics' labels (`ROOMS`, `projection.rooms`, `rooms.room_created.<id>`),
// never the deployment-prefixed server names (`UX_ROOMS`, `projection_rooms`, `ux.rooms…`), and
// accepts either form as input.
import { DLQ_STREAM, STREAMS, streamName } from "@scribe/contracts";
import { durableName, type Bus } from "@scribe/kit";
import { WORKFLOW_STREAM } from "@scribe/workflow";

/** Every stream the CLI knows, by its contract name. */
export const STREAM_NAMES: readonly string[] = [...Object.keys(STREAMS), DLQ_STREAM.name, WORKFLOW_STREAM];

/** `UX_ROOMS` → `ROOMS` (a name without this deployment's prefix is returned as it is). */
export function shownStream(prefix: string, serverName: string): string {
  const head = streamName(prefix, "");
  return head && serverName.startsWith(head) ? serverName.slice(head.length) : serverName;
}

/** `rooms`, `ROOMS` or `UX_ROOMS` → `ROOMS`; anything else is an error listing the streams. */
export function streamArg(prefix: string, input: string): string {
  const upper = shownStream(prefix, input.toUpperCase());
  if (STREAM_NAMES.includes(upper)) return upper;
  throw new Error(`unknown stream ${input}; streams: ${STREAM_NAMES.join(", ")}`);
}

/** `ux.rooms.room_created.1` → `rooms.room_created.1`. */
export function shownSubject(bus: Pick<Bus, "prefix">, subject: string): string {
  return bus.prefix && subject.startsWith(`${bus.prefix}.`) ? subject.slice(bus.prefix.length + 1) : subject;
}

/** A subject filter as typed (with or without the prefix) → the server's subject. */
export function subjectArg(bus: Pick<Bus, "prefix" | "subject">, input: string): string {
  return bus.subject(shownSubject(bus, input));
}

/** Do two consumer names name the same consumer (`projection.rooms` and `projection_rooms` do)? */
export function sameConsumer(a: string, b: string): boolean {
  return durableName(a) === durableName(b);
}

/** The consumer's shown name: the name it was made with (its description), else its durable name. */
export function shownConsumer(info: { name: string; config: { description?: string } }): string {
  const described = info.config.description;
  return described && sameConsumer(described, info.name) ? described : info.name;
}
