// The scripted meetings through the OpenAI-compatible summariser against a local model server
// (real HTTP) that answers from each meeting's truth, after refusing every question once with 429
// and once with 503: the prompts carry the transcript, the answers are parsed into the spec's
// shapes, and the kit's retry policy gets every answer through.
import { afterEach, describe, expect, it } from "vitest";
import { OpenAiLlm } from "../src/llm/openai";
import { LlmSummariser } from "../src/summary/llm-summariser";
import { summariseMeeting } from "../src/summary/meeting";
import type { SummaryContext } from "../src/types";
import { summaryMeetings, type SummaryMeeting } from "../../simulators/src/speech/summary-meetings";
import { scoreTasks } from "../../simulators/src/speech/summary-scoring";
import { scriptTranscript } from "../../simulators/src/speech/summary-transcripts";
import { fakeServer, json, log, type FakeServer } from "./helpers";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const lastMessage = (body: Buffer) => (JSON.parse(body.toString()) as { messages: { content: string }[] }).messages.at(-1)!.content;

/** A model that knows the meeting's truth, refusing each distinct question twice before answering. */
function truthfulModel(meeting: SummaryMeeting): Promise<FakeServer> {
  const asked = new Map<string, number>();
  const { truth } = meeting;
  return fakeServer((req, res) => {
    const prompt = lastMessage(req.body);
    const n = (asked.get(prompt) ?? 0) + 1;
    asked.set(prompt, n);
    if (n === 1) return json(res, 429, { error: { message: "rate limited" } });
    if (n === 2) return json(res, 503, { error: { message: "overloaded" } });
    const reply = (content: unknown) =>
      json(res, 200, { choices: [{ message: { content: typeof content === "string" ? content : JSON.stringify(content) } }] });
    if (prompt.startsWith("Identify the main subject"))
      return reply({ title: truth.topics[0], summary: `They discussed ${truth.topics[0]}.` });
    if (prompt.startsWith("Below are the titles")) return reply(truth.topics[0]!);
    if (prompt.startsWith("What are the main")) return reply({ subjects: truth.topics });
    if (prompt.startsWith("Describe what the meeting covered")) return reply(`Analysis: ${truth.decisions.join("; ")}.`);
    if (prompt.startsWith("Summarise this subject")) return reply(`${truth.decisions[0]}.`);
    if (prompt.startsWith("Write a quick, high-level recap")) return reply(`The team discussed ${truth.topics.join(", ")}.`);
    if (prompt.startsWith("Identify what was decided")) {
      return reply({
        decisions: truth.decisions.map((decision) => ({ decision, rationale: null, decided_by: null })),
        // Owners in lower case, as models write them: the summariser matches them to participants.
        next_steps: truth.tasks.map((t) => ({
          task: `Action: ${t.task}`,
          assigned_to: t.owner.toLowerCase(),
          deadline: t.due ?? null,
          context: null,
        })),
      });
    }
    json(res, 400, { error: `unexpected prompt: ${prompt.slice(0, 80)}` });
  });
}

describe.each(summaryMeetings.map((m) => [m.script.name, m] as const))(
  "LLM summary of %s through a local model server",
  (_name, meeting) => {
    it("sends the transcript, retries 429 and 503, and parses the answers into the spec's shapes", async () => {
      server = await truthfulModel(meeting);
      const transcript = await scriptTranscript(meeting);
      const ctx: SummaryContext = { participants: transcript.participants, sourceLanguage: "en", targetLanguage: "en" };
      const llm = new OpenAiLlm({
        baseUrl: `${server.url}/v1`,
        model: "stub",
        temperature: 0.4,
        timeoutMs: 10_000,
        retry: { attempts: 3, backoffMs: 1, maxBackoffMs: 2 },
        parseRetries: 0,
        contextWindow: 64_000,
        jsonMode: "json_schema",
        logger: log,
      });
      const result = await summariseMeeting(transcript.words, new LlmSummariser(llm, log), ctx, { durationSeconds: transcript.duration });

      // Every question was refused twice and answered on the third attempt.
      const prompts = server.requests.map((r) => lastMessage(r.body));
      const counts = new Map<string, number>();
      for (const p of prompts) counts.set(p, (counts.get(p) ?? 0) + 1);
      expect([...counts.values()].every((c) => c === 3)).toBe(true);

      // The action-items prompt holds the whole transcript as "<name>: <what they said>" lines.
      const actionPrompt = prompts.find((p) => p.startsWith("Identify what was decided"))!;
      for (const turn of meeting.script.turns) expect(actionPrompt).toContain(turn.text);
      for (const s of meeting.script.speakers) expect(actionPrompt).toMatch(new RegExp(`(^|\\n)${s.name}: `));
      const topicPrompt = prompts.find((p) => p.startsWith("Identify the main subject"))!;
      expect(topicPrompt).toContain(`${meeting.script.speakers[0]!.name}: ${meeting.script.turns[0]!.text}`);

      // Parsed into the spec's shapes: cleaned titles, named owners with participant ids, deadlines.
      expect(result.topics.length).toBeGreaterThan(0);
      for (const t of result.topics) expect(t.title).toMatch(/^[A-Z]/);
      expect(result.title).toMatch(/^[A-Z]/);
      const items = result.summary.actionItems!;
      expect(items.decisions.map((d) => d.decision)).toEqual(meeting.truth.decisions);
      const score = scoreTasks(items.next_steps, meeting.truth.tasks);
      expect(score.missed).toEqual([]);
      expect(score.extra).toEqual([]);
      for (const step of items.next_steps) {
        expect(step.task).not.toMatch(/^Action:/);
        const owner = transcript.participants.find((p) => p.name === step.assigned_to);
        expect(step.assigned_to_participant_id).toBe(owner ? owner.id : null);
      }
      expect(result.summary.shortSummary).toBe(`The team discussed ${meeting.truth.topics.join(", ")}.`);
      expect(result.summary.longSummary).toMatch(/^# Quick recap\n\n.+\n\n# Summary\n\n\*\*/);
    });
  },
);
