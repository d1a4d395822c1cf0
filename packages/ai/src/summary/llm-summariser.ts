// Summarisation with an LLM, step by step as the reference does it (behaviour §7.5–7.7): topic
// title and summary per chunk, the meeting title, subjects, per-subject paragraphs, the recap and
// the action items, each prompt told who the participants are and which language to write in.
import { z } from "zod";
import { isAppError } from "@scribe/kit";
import type { Logger } from "@scribe/kit";
import type {
  ActionItems,
  Llm,
  MeetingSummary,
  SubjectSummary,
  Summariser,
  SummaryContext,
  SummaryInput,
  TopicSummary,
  Word,
} from "../types";
import { computeMaxSubjects } from "./chunking";
import {
  ACTION_ITEMS_PROMPT,
  contextInstructions,
  detailedSubjectPrompt,
  PARAGRAPH_PROMPT,
  PARTICIPANTS_PROMPT,
  RECAP_PROMPT,
  subjectsPrompt,
  TITLE_PROMPT,
  TOPIC_PROMPT,
} from "./prompts";
import { cleanTitle, matchParticipant, stripTaskPrefix, transcriptText } from "./text";
import { longSummaryMarkdown } from "./markdown";

/** Models sometimes capitalise keys (`Title`); accept both, as the reference does. */
const lowerKeys = (v: unknown) =>
  v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k.toLowerCase(), x])) : v;

export const TopicAnswer = z.preprocess(lowerKeys, z.object({ title: z.string().min(8), summary: z.string().min(8) }));
export const SubjectsAnswer = z.object({ subjects: z.array(z.string().min(1)) });
export const ParticipantsAnswer = z.object({
  participants: z.array(z.object({ name: z.string().min(1), is_speaker: z.boolean().default(true) })),
  total_speakers: z.number().int().nullish(),
  mentioned_only: z.array(z.string()).default([]),
});
const nullableText = z
  .string()
  .nullish()
  .transform((v) => (v && v.trim() ? v.trim() : null));
export const ActionItemsAnswer = z.object({
  decisions: z.array(z.object({ decision: z.string().min(1), rationale: nullableText, decided_by: nullableText })).default([]),
  next_steps: z
    .array(z.object({ task: z.string().min(1), assigned_to: nullableText, deadline: nullableText, context: nullableText }))
    .default([]),
});

export const DEFAULT_MAX_SUBJECTS = 6;

export class LlmSummariser implements Summariser {
  readonly name = "llm";
  constructor(
    private readonly llm: Llm,
    private readonly logger?: Logger,
  ) {}

  async topic(words: readonly Word[], ctx: SummaryContext): Promise<TopicSummary> {
    const text = transcriptText(words, ctx.participants);
    const prompt = `${TOPIC_PROMPT}\n\n${contextInstructions(ctx, names(ctx))}\n\n# Transcript excerpt\n${text}`;
    const answer = await this.llm.completeJson(prompt, TopicAnswer, { temperature: 0.9, label: "Topic analyzer" });
    return { title: cleanTitle(answer.title), summary: answer.summary.trim() };
  }

  async title(topicTitles: readonly string[], ctx: SummaryContext): Promise<string | null> {
    if (topicTitles.length === 0) return null;
    const prompt = `${TITLE_PROMPT}\n\n${contextInstructions(ctx, names(ctx))}`;
    const answer = await this.llm.completeText(prompt, [topicTitles.map((t) => `- ${t}`).join("\n")], {
      temperature: 0.5,
      label: "Title generator",
    });
    const line = answer
      .split("\n")
      .map((l) => l.trim())
      .find(Boolean);
    return line ? cleanTitle(line) : null;
  }

  async summary(input: SummaryInput): Promise<MeetingSummary> {
    const { ctx } = input;
    if (input.words.length === 0) return { subjects: [], shortSummary: null, longSummary: null, actionItems: null };
    let transcript = transcriptText(input.words, ctx.participants);
    let people = names(ctx);
    if (people.length === 0) people = await this.identifyParticipants(transcript, ctx);
    if (people.length) transcript += `\n\n# Participants\n\n${people.map((n) => `- ${n}`).join("\n")}`;
    const instructions = contextInstructions(ctx, people);
    const ask = (prompt: string) => `${prompt}\n\n${instructions}`;

    const max = input.durationSeconds === undefined ? DEFAULT_MAX_SUBJECTS : computeMaxSubjects(input.durationSeconds);
    const subjects = await this.tolerant("subjects", [] as string[], async () =>
      (
        await this.llm.completeJson(`${ask(subjectsPrompt(max))}\n\n# Transcript\n${transcript}`, SubjectsAnswer, { label: "Subjects" })
      ).subjects
        .map((s) => s.trim())
        .filter(Boolean)
        .slice(0, max),
    );

    const summaries: SubjectSummary[] = [];
    for (const subject of subjects) {
      const detailed = await this.llm.completeText(ask(detailedSubjectPrompt(subject)), [transcript], { label: "Topic assistant" });
      const paragraph = await this.llm.completeText(ask(PARAGRAPH_PROMPT), [detailed], { label: "Topic summarizer" });
      summaries.push({ subject, summary: paragraph });
    }
    const recap = summaries.length
      ? await this.llm.completeText(ask(RECAP_PROMPT), [summaries.map((s) => `${s.subject}: ${s.summary}`).join("\n\n")], {
          label: "Recap summarizer",
        })
      : "";

    const actionItems = await this.tolerant("action items", null, async () =>
      withParticipantIds(
        await this.llm.completeJson(`${ask(ACTION_ITEMS_PROMPT)}\n\n# Transcript\n${transcript}`, ActionItemsAnswer, {
          label: "Action items",
        }),
        ctx,
      ),
    );
    return {
      subjects: summaries,
      shortSummary: recap || null,
      longSummary: recap || summaries.length ? longSummaryMarkdown(recap, summaries) : null,
      actionItems,
    };
  }

  private async identifyParticipants(transcript: string, ctx: SummaryContext): Promise<string[]> {
    return this.tolerant("participants", [] as string[], async () => {
      const a = await this.llm.completeJson(
        `${PARTICIPANTS_PROMPT}\n\n${contextInstructions(ctx, [])}\n\n# Transcript\n${transcript}`,
        ParticipantsAnswer,
        {
          label: "Participant identifier",
        },
      );
      return [...new Set([...a.participants.map((p) => p.name.trim()), ...a.mentioned_only.map((n) => n.trim())])].filter(Boolean);
    });
  }

  /**
   * The reference treats subjects, participants and action items as optional: a bad answer leaves
   * them out. A backend that is down is different: that error propagates so the step is retried.
   */
  private async tolerant<T>(what: string, fallback: T, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (isAppError(e) && e.kind === "unavailable") throw e;
      this.logger?.warn({ err: e, what }, "LLM step failed; continuing without it");
      return fallback;
    }
  }
}

function names(ctx: SummaryContext): string[] {
  return [...new Set(ctx.participants.map((p) => p.name.trim()).filter(Boolean))];
}

/** Owners and deciders that name a recorded participant get that participant's name and id. */
export function withParticipantIds(answer: z.infer<typeof ActionItemsAnswer>, ctx: SummaryContext): ActionItems {
  return {
    decisions: answer.decisions.map((d) => {
      const who = matchParticipant(d.decided_by, ctx.participants);
      return {
        decision: d.decision.trim(),
        rationale: d.rationale,
        decided_by: who?.name ?? d.decided_by,
        decided_by_participant_id: who?.id ?? null,
      };
    }),
    next_steps: answer.next_steps.map((s) => {
      const who = matchParticipant(s.assigned_to, ctx.participants);
      return {
        task: stripTaskPrefix(s.task),
        assigned_to: who?.name ?? s.assigned_to,
        assigned_to_participant_id: who?.id ?? null,
        deadline: s.deadline,
        context: s.context,
      };
    }),
  };
}
