// The event catalog for ingesters (docs/EVENTS.md), generated from the registry so it cannot drift:
// every event type with its stream, subject pattern, data schema URI and the data's JSON Schema.
import { z } from "zod";
import { CloudEventSchema } from "./common/envelope";
import { dataSchemaUri, eventToken } from "./common/event-def";
import { DLQ_STREAM, STREAMS, type StreamName } from "./common/streams";
import { EVENT_DEFS } from "./registry";

const jsonSchemaOf = (schema: z.ZodType) =>
  JSON.stringify(z.toJSONSchema(schema, { io: "output", unrepresentable: "any", target: "draft-2020-12" }), null, 2);

export function renderEventCatalog(): string {
  const lines: string[] = [
    "# Scribe events",
    "",
    "<!-- Generated from packages/contracts (EVENT_DEFS) by `pnpm generate:events-doc`; test/events-doc.test.ts fails when it is stale. -->",
    "",
    "Every change Scribe makes is announced as a [CloudEvents 1.0](https://cloudevents.io) event on NATS",
    "JetStream, written through each service's transactional outbox (so an event exists exactly when its",
    "change was committed). Ingesters subscribe to the streams below; each event's `data` follows the JSON",
    "Schema given here (`dataschema` names it). Subjects have three tokens,",
    "`<context>.<event type with dots as underscores>.<aggregate id>`, so `transcripts.*.<id>` selects",
    "one transcript's events and `transcripts.transcript_updated.*` one type. A deployment's",
    "`NATS_PREFIX` is prepended to subjects (`<prefix>.`) and stream names (`<PREFIX>_`).",
    "",
    "Delivery is at least once: consumers deduplicate by the event `id` (a UUIDv7).",
    "",
    "## Envelope",
    "",
    "```json",
    jsonSchemaOf(CloudEventSchema),
    "```",
    "",
    "## Streams",
    "",
    "| Stream | Subjects | What |",
    "| --- | --- | --- |",
    ...(Object.entries(STREAMS) as [StreamName, (typeof STREAMS)[StreamName]][]).map(
      ([name, s]) => `| \`${name}\` | \`${s.context}.>\` | ${s.description} |`,
    ),
    `| \`${DLQ_STREAM.name}\` | \`${DLQ_STREAM.context}.>\` | events a consumer could not apply, with the reason in headers |`,
    "",
    "## Event types",
    "",
    "| Type | Stream | Subject | Data schema |",
    "| --- | --- | --- | --- |",
  ];
  const defs = [...EVENT_DEFS].sort((a, b) => a.stream.localeCompare(b.stream) || a.type.localeCompare(b.type));
  for (const def of defs) {
    lines.push(
      `| [\`${def.type}\`](#${anchor(def.type)}) | \`${def.stream}\` | \`${STREAMS[def.stream].context}.${eventToken(def.type)}.<id>\` | \`${dataSchemaUri(def)}\` |`,
    );
  }
  for (const def of defs) {
    lines.push(
      "",
      `### ${def.type}`,
      "",
      `Stream \`${def.stream}\`, subject \`${STREAMS[def.stream].context}.${eventToken(def.type)}.<id>\`, \`dataschema\` \`${dataSchemaUri(def)}\`.`,
      "",
      "```json",
      jsonSchemaOf(def.data),
      "```",
    );
  }
  return lines.join("\n") + "\n";
}

/** GitHub's heading anchor for a heading made of the event type. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, "")
    .replace(/ /g, "-");
}
