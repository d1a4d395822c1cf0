// The English grammar the offline summariser leans on, from compromise (a maintained rule-and-
// lexicon tagger that works on lower-case, unpunctuated recogniser output too): noun phrases for
// titles and subjects, whether a stated task starts with a verb, and deadlines inside it.
import nlp from "compromise";
import { STOPWORDS } from "./stopwords";

interface TermJson {
  text: string;
  normal: string;
  tags: string[];
}

/** Words that head no noun phrase worth a title: time words, greetings, vague quantities. */
const VAGUE = new Set([
  "morning",
  "afternoon",
  "evening",
  "everyone",
  "everybody",
  "thing",
  "things",
  "lot",
  "half",
  "time",
  "times",
  "year",
  "week",
  "month",
  "day",
  "today",
  "tomorrow",
  "yesterday",
  "people",
  "one",
  "something",
  "nothing",
  "anything",
  "topic",
  "meeting",
]);

/** Tags that never belong in a title's noun phrase (articles, pronouns, names, numbers, dates). */
const DROP_TAGS = ["Determiner", "Pronoun", "Possessive", "Person", "Value", "Date", "Preposition", "Conjunction", "Adverb", "Verb"];

/** Tags that join two phrases when they stand inside one. */
const JOINTS = ["Determiner", "Conjunction", "Preposition", "Possessive"];

/**
 * Noun phrases of `text` as titles want them: no article, pronoun, person's name, number or date,
 * at most three words ending in the noun ("the new payment system" → "new payment system").
 * `exclude` names more words to drop (the participants' names the tagger may not know).
 */
export function nounPhrases(text: string, exclude: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (const phrase of nlp(text).nouns().json() as { terms: TermJson[] }[]) {
    // The tagger can join "disk space and the web site" into one phrase: keep what follows the last joint.
    const joint = phrase.terms.findLastIndex((t) => t.tags.some((tag) => JOINTS.includes(tag)));
    const kept = phrase.terms
      .slice(joint + 1)
      .filter((t) => !t.tags.some((tag) => DROP_TAGS.includes(tag)) && !exclude.has(t.normal))
      .map((t) => t.normal.replace(/[^\p{L}\p{N}'-]+/gu, ""))
      .filter((w) => w.length >= 2 && !/^\d+$/.test(w));
    // A phrase ends in its noun: "mobile app faster" (from "make the mobile app faster") is "mobile app".
    while (kept.length && !phrase.terms.find((t) => t.normal === kept[kept.length - 1])?.tags.includes("Noun")) kept.pop();
    const words = kept.slice(-3);
    const head = words[words.length - 1];
    if (!head || VAGUE.has(head) || STOPWORDS.has(head) || head.length < 3) continue;
    while (words.length > 1 && (STOPWORDS.has(words[0]!) || VAGUE.has(words[0]!))) words.shift();
    out.push(words.join(" "));
  }
  return out;
}

const WEEKDAY = "monday|tuesday|wednesday|thursday|friday|saturday|sunday";
const MONTH = "january|february|march|april|may|june|july|august|september|october|november|december";
// Plurals too: a recogniser hears "next months" for "next month".
const PERIOD = "(?:day|week|month|quarter|year|sprint)s?";
/** A deadline said after the task: "by Friday", "next week", "before the next meeting", "in March". */
const DEADLINE = new RegExp(
  [
    `(?:by|before|until|no later than|on)\\s+(?:the\\s+)?(?:end\\s+of\\s+(?:the\\s+)?(?:${PERIOD}|${MONTH})|next\\s+(?:${PERIOD}|meeting|${WEEKDAY})|(?:this|next)\\s+${PERIOD}|tomorrow|tonight|today|${WEEKDAY}|${MONTH}|(?:first|\\w+th|\\w+st|\\w+nd|\\w+rd)\\s+of\\s+(?:${MONTH}))`,
    `(?:in|during)\\s+(?:${MONTH})`,
    `(?:next|this)\\s+(?:${PERIOD}|${WEEKDAY})`,
    `(?:the\\s+)?end\\s+of\\s+(?:the\\s+)?(?:${PERIOD}|${MONTH})`,
    `tomorrow|tonight|today`,
  ]
    .map((alt) => `\\b(?:${alt})\\b`)
    .join("|"),
  "i",
);

/** A preposition left at the end of a task once its deadline is taken out ("schedule the interviews for"). */
const DANGLING_PREPOSITION = /\s+(?:for|by|on|in|until|before|during|at)$/i;

/** The task without its deadline, and the deadline as said (null when none was said). */
export function splitDeadline(task: string): { task: string; deadline: string | null } {
  const m = DEADLINE.exec(task);
  if (!m) return { task: task.trim(), deadline: null };
  const before = task.slice(0, m.index).trimEnd();
  const after = task.slice(m.index + m[0].length).trim();
  const rest = `${after ? before : before.replace(DANGLING_PREPOSITION, "")} ${after}`.replace(/\s+/g, " ").trim();
  return { task: rest, deadline: m[0].trim() };
}

/**
 * The task with its first verb as the infinitive a to-do list uses: a recogniser's "let us
 * preparing an offer" or "Bob will sends …" becomes "prepare an offer", "send …".
 */
export function infinitiveFirst(task: string): string {
  const doc = nlp(task);
  doc.compute("root");
  const first = (doc.json() as { terms: (TermJson & { root?: string })[] }[])[0]?.terms[0];
  if (!first?.tags.includes("Verb") || !first.root || first.root === first.normal) return task;
  const [word = "", ...rest] = task.trimStart().split(/\s+/);
  return /^[\p{L}]+$/u.test(word) ? [first.root, ...rest].join(" ") : task;
}

/** Whether the first word is a verb as the tagger reads it ("send the invoice", not "probably sign"). */
export function startsWithVerb(text: string): boolean {
  const first = (nlp(text).terms().json() as { terms: TermJson[] }[])[0]?.terms[0];
  return first?.tags.includes("Verb") ?? false;
}
