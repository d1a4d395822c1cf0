import { afterEach, describe, expect, it } from "vitest";
import { AppError } from "@scribe/kit";
import { OpenAiLlm } from "../src/llm/openai";
import { LlmSummariser } from "../src/summary/llm-summariser";
import type { SummaryContext, Word } from "../src/types";
import { fakeServer, json, log, type FakeServer } from "./helpers";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const words: Word[] = [
  { text: " We", start: 0, end: 0.2, speaker: 0 },
  { text: " decided", start: 0.2, end: 0.5, speaker: 0 },
  { text: " to", start: 0.5, end: 0.6, speaker: 0 },
  { text: " ship", start: 0.6, end: 0.8, speaker: 0 },
  { text: " in", start: 0.8, end: 0.9, speaker: 0 },
  { text: " March.", start: 0.9, end: 1.2, speaker: 0 },
  { text: " I'll", start: 1.5, end: 1.7, speaker: 1 },
  { text: " send", start: 1.7, end: 1.9, speaker: 1 },
  { text: " the", start: 1.9, end: 2.0, speaker: 1 },
  { text: " report.", start: 2.0, end: 2.4, speaker: 1 },
];

const ctx: SummaryContext = {
  participants: [
    { id: "p-alice", name: "Alice Smith", speaker: 0 },
    { id: "p-bob", name: "Bob", speaker: 1 },
  ],
  sourceLanguage: "en",
  targetLanguage: "fr",
};

/** A fake OpenAI-compatible server that answers by recognising which step is asking. */
async function modelServer(overrides: { subjects?: () => unknown; actionItems?: () => unknown; down?: RegExp } = {}): Promise<FakeServer> {
  return fakeServer((req, res) => {
    const prompt = (JSON.parse(req.body.toString()) as { messages: { content: string }[] }).messages.at(-1)!.content;
    if (overrides.down?.test(prompt)) return json(res, 503, { error: "down" });
    const reply = (content: unknown) =>
      json(res, 200, { choices: [{ message: { content: typeof content === "string" ? content : JSON.stringify(content) } }] });
    if (prompt.startsWith("Identify the main subject"))
      return reply({ Title: '"the march launch plan"', Summary: "The team moved the launch to March." });
    if (prompt.startsWith("Below are the titles")) return reply("the launch and the report\nextra line");
    if (prompt.startsWith("What are the main"))
      return reply(overrides.subjects?.() ?? { subjects: ["Launch date", "Budget report", "Extra"] });
    if (prompt.startsWith("Describe what the meeting covered")) return reply("Detailed analysis.");
    if (prompt.startsWith("Summarise this subject"))
      return reply(`Paragraph ${prompt.includes("Detailed analysis.") ? "from the analysis" : "?"}.`);
    if (prompt.startsWith("Write a quick, high-level recap")) return reply("Launch moves; report follows.");
    if (prompt.startsWith("Identify what was decided")) {
      return reply(
        overrides.actionItems?.() ?? {
          decisions: [{ decision: "Ship in March", rationale: "quality", decided_by: "Alice Smith" }],
          next_steps: [
            { task: "Action: send the report", assigned_to: "bob", deadline: "Friday", context: null },
            { task: "TODO - book a room", assigned_to: "team", deadline: null, context: "" },
          ],
        },
      );
    }
    json(res, 400, { error: `unexpected prompt: ${prompt.slice(0, 80)}` });
  });
}

function summariser(url: string): LlmSummariser {
  const llm = new OpenAiLlm({
    baseUrl: `${url}/v1`,
    model: "m",
    temperature: 0.4,
    timeoutMs: 5000,
    retry: { attempts: 2, backoffMs: 1, maxBackoffMs: 2 },
    parseRetries: 1,
    contextWindow: 16000,
    jsonMode: "json_schema",
    logger: log,
  });
  return new LlmSummariser(llm, log);
}

const prompts = (s: FakeServer) =>
  s.requests.map((r) => (JSON.parse(r.body.toString()) as { messages: { content: string }[] }).messages.at(-1)!.content);

describe("LLM summariser", () => {
  it("titles a topic from the excerpt with speaker names, cleaning the title", async () => {
    server = await modelServer();
    const topic = await summariser(server.url).topic(words, ctx);
    expect(topic).toEqual({ title: "The March Launch Plan", summary: "The team moved the launch to March." });
    const [prompt] = prompts(server);
    expect(prompt).toContain("Alice Smith: We decided to ship in March.");
    expect(prompt).toContain("Bob: I'll send the report.");
    expect(prompt).toContain("The transcript is in English. Write your answer in French");
    expect(JSON.parse(server.requests[0]!.body.toString()).temperature).toBe(0.9);
  });

  it("makes one meeting title from the topic titles, and none without topics", async () => {
    server = await modelServer();
    const s = summariser(server.url);
    expect(await s.title(["Launch date", "Budget report"], ctx)).toBe("The Launch and the Report");
    expect(prompts(server)[0]).toContain("- Launch date\n- Budget report");
    expect(await s.title([], ctx)).toBeNull();
    expect(server.requests).toHaveLength(1);
  });

  it("builds subjects, recap, markdown and action items with participants named in every prompt", async () => {
    server = await modelServer();
    const summary = await summariser(server.url).summary({ words, ctx, durationSeconds: 600 });
    // 600 s allows two subjects (computeMaxSubjects).
    expect(summary.subjects.map((s) => s.subject)).toEqual(["Launch date", "Budget report"]);
    expect(summary.shortSummary).toBe("Launch moves; report follows.");
    expect(summary.longSummary).toBe(
      "# Quick recap\n\nLaunch moves; report follows.\n\n# Summary\n\n**Launch date**\nParagraph from the analysis.\n\n**Budget report**\nParagraph from the analysis.\n",
    );
    expect(summary.actionItems).toEqual({
      decisions: [{ decision: "Ship in March", rationale: "quality", decided_by: "Alice Smith", decided_by_participant_id: "p-alice" }],
      next_steps: [
        { task: "Send the report", assigned_to: "Bob", assigned_to_participant_id: "p-bob", deadline: "Friday", context: null },
        { task: "Book a room", assigned_to: "team", assigned_to_participant_id: null, deadline: null, context: null },
      ],
    });
    for (const p of prompts(server)) {
      expect(p).toContain("The people in this conversation are: Alice Smith, Bob.");
      expect(p).toContain("Write your answer in French");
    }
    expect(prompts(server).find((p) => p.startsWith("Identify what was decided"))).toContain("# Participants\n\n- Alice Smith\n- Bob");
    // The schema sent is what the model must write: typed, nullable fields, not the parsed output.
    const actionRequest = server.requests.find((r) => r.body.toString().includes("Identify what was decided"))!;
    const schema = (
      JSON.parse(actionRequest.body.toString()) as {
        response_format: { json_schema: { schema: { properties: { next_steps: { items: { properties: Record<string, unknown> } } } } } };
      }
    ).response_format.json_schema.schema;
    expect(schema.properties.next_steps.items.properties.assigned_to).toEqual({ type: ["string", "null"] });
  });

  it("asks the model who took part when no participant is named", async () => {
    server = await fakeServer((req, res) => {
      const prompt = (JSON.parse(req.body.toString()) as { messages: { content: string }[] }).messages.at(-1)!.content;
      const reply = (c: unknown) => json(res, 200, { choices: [{ message: { content: JSON.stringify(c) } }] });
      if (prompt.startsWith("Identify the people"))
        return reply({ participants: [{ name: "Dana", is_speaker: true }], total_speakers: 2, mentioned_only: ["Eve"] });
      if (prompt.startsWith("What are the main")) return reply({ subjects: [] });
      return reply({ decisions: [], next_steps: [] });
    });
    const summary = await summariser(server.url).summary({ words, ctx: { ...ctx, participants: [] } });
    expect(summary.actionItems).toEqual({ decisions: [], next_steps: [] });
    expect(summary.longSummary).toBeNull();
    expect(prompts(server).at(-1)).toContain("The people in this conversation are: Dana, Eve.");
  });

  it("leaves out subjects and action items the model cannot answer in shape", async () => {
    server = await modelServer({ subjects: () => "no json", actionItems: () => ({ decisions: "nope" }) });
    const summary = await summariser(server.url).summary({ words, ctx });
    expect(summary.subjects).toEqual([]);
    expect(summary.actionItems).toBeNull();
  });

  it("lets a backend outage through as a retryable error instead of an empty summary", async () => {
    server = await modelServer({ down: /^Identify what was decided/ });
    const error = await summariser(server.url)
      .summary({ words, ctx })
      .catch((e: unknown) => e);
    expect((error as AppError).kind).toBe("unavailable");
  });
});
