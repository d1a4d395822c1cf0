// Prompts for the LLM summariser, following the reference's steps (behaviour §7.5–7.7) in our words.
import type { SummaryContext } from "../types";

export const TOPIC_PROMPT = [
  "Identify the main subject discussed in the meeting transcript excerpt below. Ignore small talk,",
  "greetings and off-topic remarks.",
  "Return a title that is specific, descriptive and professional (not generic words like",
  '"Discussion" or "Meeting"), and a summary of at most two sentences saying what was discussed',
  "or decided.",
].join("\n");

export const TITLE_PROMPT = [
  "Below are the titles of the topics of one meeting. Write one concise title for the whole",
  'meeting, at most 10 words, as a noun phrase. Avoid generic words such as "meeting" or',
  '"discussion". Prefer the most significant topic, or combine two. Ignore small talk.',
  "Answer with the title alone on a single line.",
].join("\n");

export const PARTICIPANTS_PROMPT = [
  "Identify the people in this conversation. Tell apart the people who spoke in the transcript",
  "and those who were only mentioned. List each person once. People only, no companies.",
].join("\n");

export function subjectsPrompt(max: number): string {
  return [
    "What are the main, high-level subjects of this meeting? Leave out subjects that were only",
    `mentioned briefly and do not quote. Give at most ${max} ${max === 1 ? "subject" : "subjects"},`,
    "each a concise noun phrase rather than a sentence.",
  ].join("\n");
}

export function detailedSubjectPrompt(subject: string): string {
  return [
    `Describe what the meeting covered about "${subject}", and nothing unrelated to it:`,
    "- the important arguments, insights and data presented;",
    "- the decisions reached, with the reasons or factors behind them;",
    "- the action items, who is responsible for each, and any deadline or timeframe;",
    "- open issues that need further discussion.",
    "Attribute statements and tasks to people by name. Keep it clear, structured and under one page.",
  ].join("\n");
}

export const PARAGRAPH_PROMPT = [
  "Summarise this subject in one paragraph; it becomes one part of the meeting summary.",
  "Keep the decisions and action items. Do not add information.",
].join("\n");

export const RECAP_PROMPT = [
  "Write a quick, high-level recap of the meeting below in one paragraph: its highlights only,",
  "without decisions, action items or open issues, and without unnecessary detail. Do not start",
  'with "During the meeting" or an equivalent: the reader knows it was a meeting.',
].join("\n");

export const ACTION_ITEMS_PROMPT = [
  "Identify what was decided in this meeting and what needs to happen next.",
  "",
  "Decisions: every decision, choice or conclusion reached, even an implicit one. For each: what",
  "was decided (specifically), who decided or was involved (participant names), and why.",
  "",
  'Next steps: every task, follow-up or commitment, even a minor one ("I\'ll do X", "we should',
  'do Y"). For each: the concrete task (without a leading label such as "Action:" or "TODO:"),',
  'who is responsible (a participant name, "team", or null), the deadline or timeframe if one was',
  "mentioned, and any context needed to understand it.",
  "",
  "Use the participants' exact names. Return empty lists only if there is no decision and no task.",
].join("\n");

const languageNames = new Intl.DisplayNames(["en"], { type: "language" });

function languageName(code: string): string {
  try {
    return languageNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** Appended to every prompt: who the participants are and which language to write in. */
export function contextInstructions(ctx: SummaryContext, names: readonly string[]): string {
  const parts: string[] = [];
  if (names.length) {
    parts.push(
      [
        "# Participants",
        `The people in this conversation are: ${names.join(", ")}.`,
        'Refer to people by these names, never as "a participant", "someone" or "Speaker 1".',
      ].join("\n"),
    );
  }
  const source = languageName(ctx.sourceLanguage);
  const target = languageName(ctx.targetLanguage);
  parts.push(
    ctx.sourceLanguage === ctx.targetLanguage
      ? `# Language\nThe transcript is in ${source}. Write your answer in ${target}.`
      : `# Language\nThe transcript is in ${source}. Write your answer in ${target}, translating as needed.`,
  );
  return parts.join("\n\n");
}
