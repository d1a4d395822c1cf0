import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError } from "@scribe/kit";
import { LlmParseError, OpenAiLlm, type OpenAiLlmOptions } from "../src/llm/openai";
import { fakeServer, json, log, type FakeServer, type RecordedRequest } from "./helpers";

const Topic = z.object({ title: z.string().min(8), summary: z.string().min(8) });

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function llm(url: string, over: Partial<OpenAiLlmOptions> = {}): OpenAiLlm {
  return new OpenAiLlm({
    baseUrl: `${url}/v1`,
    apiKey: "llm-key",
    model: "test-model",
    temperature: 0.4,
    timeoutMs: 5000,
    retry: { attempts: 3, backoffMs: 1, maxBackoffMs: 5 },
    parseRetries: 3,
    contextWindow: 16000,
    jsonMode: "json_schema",
    logger: log,
    ...over,
  });
}

/** An OpenAI-compatible chat server answering with `answers` in turn (the last one repeats). */
async function chatServer(answers: string[]): Promise<FakeServer> {
  let i = 0;
  return fakeServer((_req, res) => {
    const content = answers[Math.min(i++, answers.length - 1)]!;
    json(res, 200, {
      id: "x",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    });
  });
}

type ChatBody = {
  model: string;
  temperature: number;
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { schema: { properties: Record<string, unknown> } } };
};
const body = (r: RecordedRequest) => JSON.parse(r.body.toString()) as ChatBody;
const lastMessage = (r: RecordedRequest) => body(r).messages.at(-1)!.content;

describe("OpenAI-compatible LLM backend", () => {
  it("asks for a JSON-schema answer and returns it validated on the first try", async () => {
    server = await chatServer([JSON.stringify({ title: "Payment system delays", summary: "The launch moves to March." })]);
    const answer = await llm(server.url).completeJson("Find the topic.", Topic, { temperature: 0.9 });
    expect(answer).toEqual({ title: "Payment system delays", summary: "The launch moves to March." });
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.url).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer llm-key");
    const b = body(req);
    expect(b.model).toBe("test-model");
    expect(b.temperature).toBe(0.9);
    expect(b.response_format?.type).toBe("json_schema");
    expect(Object.keys(b.response_format!.json_schema!.schema.properties)).toEqual(["title", "summary"]);
    expect(lastMessage(req)).toContain("Find the topic.");
  });

  it("retries a malformed answer with the error fed back, then accepts the corrected one", async () => {
    server = await chatServer([
      "Sure! Here is the topic: {title: oops",
      '```json\n{"title": "Budget report timing", "summary": "Alice sends it by Friday."}\n```',
    ]);
    const answer = await llm(server.url).completeJson("Find the topic.", Topic);
    expect(answer.title).toBe("Budget report timing");
    expect(server.requests).toHaveLength(2);
    const second = lastMessage(server.requests[1]!);
    expect(second).toContain("Find the topic.");
    expect(second).toContain("could not be parsed");
    expect(second).toContain("Error: Parse error:");
  });

  it("lists every invalid field in the correction and gives up with a non-retryable error", async () => {
    server = await chatServer([JSON.stringify({ title: "short", summary: 3 })]);
    const error = await llm(server.url, { parseRetries: 2 })
      .completeJson("Find the topic.", Topic)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmParseError);
    expect((error as LlmParseError).kind).toBe("invalid");
    expect((error as LlmParseError).lastAnswer).toContain("short");
    expect(server.requests).toHaveLength(3);
    const correction = lastMessage(server.requests[2]!);
    expect(correction).toContain("Schema validation errors");
    expect(correction).toContain("- title:");
    expect(correction).toContain("- summary:");
  });

  it("exhausts its corrections on answers that are not JSON at all", async () => {
    server = await chatServer(["I cannot produce JSON today."]);
    const error = await llm(server.url)
      .completeJson("Find the topic.", Topic)
      .catch((e: unknown) => e);
    expect((error as AppError).kind).toBe("invalid");
    expect((error as AppError).message).toMatch(/after 4 attempts: Parse error/);
    expect(server.requests).toHaveLength(4);
  });

  it("reports an endpoint that does not answer in time as unavailable, a retryable error", async () => {
    server = await fakeServer(() => {
      /* never answers */
    });
    const error = await llm(server.url, { timeoutMs: 250, retry: { attempts: 3, backoffMs: 1, maxBackoffMs: 5 } })
      .completeJson("Find the topic.", Topic)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).kind).toBe("unavailable");
    expect((error as AppError).message).toMatch(/LLM unavailable after 3 attempts: LLM: no answer within 250 ms/);
    expect(server.requests).toHaveLength(3);
  });

  it("retries an overloaded endpoint and succeeds", async () => {
    let calls = 0;
    server = await fakeServer((_req, res) => {
      if (++calls === 1) return json(res, 429, { error: { message: "rate limited" } });
      json(res, 200, { choices: [{ message: { content: "  A plain answer.  \n" } }] });
    });
    expect(await llm(server.url).completeText("Summarise.", ["Alice: hello"])).toBe("A plain answer.");
    expect(calls).toBe(2);
  });

  it("summarises texts beyond the context window in parts, then over the parts", async () => {
    server = await fakeServer((req, res) => {
      const content = lastMessage(req);
      json(res, 200, { choices: [{ message: { content: content.includes("PART") ? "partial answer" : "final answer" } }] });
    });
    const long = Array.from({ length: 40 }, (_, i) => `PART line ${i} ${"x".repeat(200)}`).join("\n");
    const answer = await llm(server.url, { contextWindow: 1000 }).completeText("Summarise.", [long]);
    expect(answer).toBe("final answer");
    expect(server.requests.length).toBeGreaterThan(2);
    for (const r of server.requests) expect(lastMessage(r).length).toBeLessThanOrEqual(3000);
  });

  it("keeps the schema in the prompt for servers without structured output", async () => {
    server = await chatServer([JSON.stringify({ title: "Hiring for mobile", summary: "Two engineers join." })]);
    await llm(server.url, { jsonMode: "none" }).completeJson("Find the topic.", Topic);
    const b = body(server.requests[0]!);
    expect(b.response_format).toBeUndefined();
    expect(lastMessage(server.requests[0]!)).toContain('"title"');
  });
});
