// The API reference must work for people and generators: every operation summarised and secured as it
// really is, errors declared in their real shapes, nullable and optional fields in forms generated
// clients read right, and /docs serving a page that loads this document.
import { describe, expect, it } from "vitest";
import { describeApi, offlineApp } from "../src/openapi";

type Json = Record<string, unknown>;
const document = describeApi() as unknown as {
  paths: Record<string, Record<string, Json & { operationId?: string; responses?: Record<string, Json> }>>;
  components: { schemas: Record<string, Json>; securitySchemes?: Record<string, Json> };
};
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, path, operation })),
);

function walk(node: unknown, at: string, visit: (schema: Json, at: string) => void): void {
  if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${at}/${i}`, visit));
  else if (typeof node === "object" && node !== null) {
    visit(node as Json, at);
    for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`, visit);
  }
}

describe("the OpenAPI document", () => {
  it("declares bearer and X-API-Key security schemes", () => {
    expect(document.components.securitySchemes).toMatchObject({
      HTTPBearer: { type: "http", scheme: "bearer" },
      APIKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
    });
  });

  it("gives every operation an operationId, a summary and its security", () => {
    const missing = operations.filter(
      ({ operation }) => !operation.operationId || !operation.summary || !Array.isArray(operation.security),
    );
    expect(missing.map((o) => o.name)).toEqual([]);
  });

  it("lets signed-in-only operations be called with a token or a key, and not anonymously", () => {
    const create = document.paths["/v1/rooms"]!.post!;
    expect(create.security).toEqual([{ HTTPBearer: [] }, { APIKeyHeader: [] }]);
    const list = document.paths["/v1/rooms"]!.get!;
    expect(list.security).toEqual([{ HTTPBearer: [] }, { APIKeyHeader: [] }, {}]);
    expect(document.paths["/v1/auth/login"]!.post!.security).toEqual([]);
  });

  it("declares the error responses each operation answers, in their real shapes", () => {
    const problems: string[] = [];
    for (const { name, path, operation } of operations) {
      const responses = operation.responses ?? {};
      const security = operation.security as unknown[];
      if (security.length > 0 && !responses["401"]) problems.push(`${name}: no 401`);
      if (path.includes("{") && !responses["404"]) problems.push(`${name}: no 404`);
      for (const [code, response] of Object.entries(responses)) {
        if (!/^[45]\d\d$/.test(code)) continue;
        const schema = (response.content as Record<string, { schema?: Json }> | undefined)?.["application/json"]?.schema;
        if (code === "422") {
          if (schema?.$ref !== "#/components/schemas/HTTPValidationError") problems.push(`${name}: 422 is not HTTPValidationError`);
        } else if (
          code !== "426" &&
          JSON.stringify(schema?.properties) !== JSON.stringify({ detail: { type: "string", description: "What went wrong, in words" } })
        ) {
          problems.push(`${name}: ${code} is not {detail: string}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(document.paths["/v1/auth/login"]!.post!.responses).toHaveProperty("429");
    expect(document.paths["/v1/transcripts/{transcript_id}/zulip"]!.post!.responses).toHaveProperty("502");
  });

  it("writes nullable references as anyOf with null, never allOf with a null type (which excludes null)", () => {
    const problems: string[] = [];
    walk(document, "#", (schema, at) => {
      const all = schema.allOf as Json[] | undefined;
      if (all?.some((s) => Array.isArray(s.type) && (s.type as string[]).includes("null"))) problems.push(at);
    });
    expect(problems).toEqual([]);
    expect((document.components.schemas.CreateTranscript!.properties as Json).source_kind).toMatchObject({
      anyOf: [{ $ref: "#/components/schemas/SourceKind" }, { type: "null" }],
    });
  });

  it("leaves default: null out of request bodies, so generated clients make those fields optional", () => {
    for (const name of ["CreateRoom", "CreateParticipant", "CreateApiKeyRequest"]) {
      const schema = document.components.schemas[name]!;
      walk(schema, name, (node, at) => expect(node.default, `${at}`).not.toBe(null));
    }
    expect(document.components.schemas.CreateRoom!.required).toEqual(["name"]);
  });

  it("lists a response's always-sent defaulted properties as required", () => {
    expect(document.components.schemas.Room!.required).toEqual(
      expect.arrayContaining(["ics_url", "ics_fetch_interval", "email_transcript_to"]),
    );
  });

  it("describes every property of request bodies and of successful answers' top level", () => {
    const schemas = document.components.schemas;
    const propertiesOf = (schema: Json | undefined): [string, Json][] => {
      if (!schema) return [];
      if (typeof schema.$ref === "string") return propertiesOf(schemas[schema.$ref.split("/").pop()!]);
      if (schema.type === "array") return propertiesOf(schema.items as Json);
      const parts = [...((schema.allOf as Json[]) ?? []), ...((schema.anyOf as Json[]) ?? []), ...((schema.oneOf as Json[]) ?? [])];
      return [...Object.entries((schema.properties as Record<string, Json>) ?? {}), ...parts.flatMap(propertiesOf)];
    };
    const undescribed = new Set<string>();
    for (const { name, operation } of operations) {
      const body = (operation.requestBody as { content?: Record<string, { schema?: Json }> } | undefined)?.content?.["application/json"]
        ?.schema;
      const answer = (operation.responses?.["200"]?.content as Record<string, { schema?: Json }> | undefined)?.["application/json"]?.schema;
      for (const [property, schema] of [...propertiesOf(body), ...propertiesOf(answer)]) {
        if (typeof schema.description !== "string" || !schema.description) undescribed.add(`${name}: ${property}`);
      }
    }
    expect([...undescribed]).toEqual([]);
  });

  it("declares GET /metrics as Prometheus text", () => {
    expect(document.paths["/metrics"]!.get!.responses!["200"]!.content).toHaveProperty("text/plain");
  });
});

describe("/docs", () => {
  it("serves Swagger UI loading /openapi.json, with its assets, offline", async () => {
    const app = offlineApp();
    const page = await app.request("/docs");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('url: "/openapi.json"');
    for (const asset of html.match(/\/docs\/assets\/[\w.-]+/g) ?? []) expect((await app.request(asset)).status, asset).toBe(200);
    const served = await (await app.request("/openapi.json")).json();
    expect(served).toEqual(JSON.parse(JSON.stringify(document)));
  });
});

// Every operationId api.md names (LiveKit's webhook is out of scope there), copied from it: the wire
// contract Scribe keeps, so a client generated from the reference finds each one here.
const CONTRACT_OPERATIONS = [
  "v1_add_email_recipient",
  "v1_create_api_key",
  "v1_delete_api_key",
  "v1_get_config",
  "v1_list_api_keys",
  "v1_login",
  "v1_meeting_audio_consent",
  "v1_meeting_deactivate",
  "v1_rooms_create",
  "v1_rooms_create_meeting",
  "v1_rooms_delete",
  "v1_rooms_get",
  "v1_rooms_get_by_name",
  "v1_rooms_get_meeting",
  "v1_rooms_ics_status",
  "v1_rooms_join_meeting",
  "v1_rooms_list",
  "v1_rooms_list_active_meetings",
  "v1_rooms_list_meetings",
  "v1_rooms_list_upcoming_meetings",
  "v1_rooms_sync_ics",
  "v1_rooms_test_webhook",
  "v1_rooms_update",
  "v1_start_recording",
  "v1_transcript_add_participant",
  "v1_transcript_assign_speaker",
  "v1_transcript_delete",
  "v1_transcript_delete_participant",
  "v1_transcript_destroy",
  "v1_transcript_download_zip",
  "v1_transcript_get",
  "v1_transcript_get_audio_mp3",
  "v1_transcript_get_audio_waveform",
  "v1_transcript_get_participant",
  "v1_transcript_get_participants",
  "v1_transcript_get_topics",
  "v1_transcript_get_topics_with_words",
  "v1_transcript_get_topics_with_words_per_speaker",
  "v1_transcript_get_video_url",
  "v1_transcript_get_websocket_events",
  "v1_transcript_head_audio_mp3",
  "v1_transcript_merge_speaker",
  "v1_transcript_post_to_zulip",
  "v1_transcript_process",
  "v1_transcript_record_upload",
  "v1_transcript_record_webrtc",
  "v1_transcript_restore",
  "v1_transcript_send_email",
  "v1_transcript_update",
  "v1_transcript_update_participant",
  "v1_transcripts_create",
  "v1_transcripts_list",
  "v1_transcripts_search",
  "v1_user_get_websocket_events",
  "v1_user_me",
  "v1_webhook",
  "v1_whereby_webhook",
  "v1_zulip_get_streams",
  "v1_zulip_get_topics",
];

describe("the operations of the wire contract", () => {
  it("are all in the OpenAPI document, under api.md's operationIds", () => {
    const ids = new Set(operations.map((o) => o.operation.operationId));
    expect(CONTRACT_OPERATIONS.filter((id) => !ids.has(id))).toEqual([]);
  });

  it("takes the live recording's offer as the RtcOffer component", () => {
    const webrtc = document.paths["/v1/transcripts/{transcript_id}/record/webrtc"]!.post!;
    expect(webrtc.operationId).toBe("v1_transcript_record_webrtc");
    expect(JSON.stringify(webrtc.requestBody)).toContain("#/components/schemas/RtcOffer");
    expect(document.components.schemas.RtcOffer).toMatchObject({ properties: { sdp: {}, type: {} } });
  });
});
