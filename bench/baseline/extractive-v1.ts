// The offline summariser as it was before issue 18 (rule-only action items, sentence-picking recap),
// frozen so `pnpm bench quality` measures the current one against it in the same run. Not used by
// the product; do not fix it here.
// Offline summariser: deterministic and model-free. Titles are key phrases (runs of content words
// scored by frequency), summaries are the best-scoring sentences, and decisions and next steps come
// from rules over what people say ("we decided to …", "Alice will …", "let's …", "action item …").
import type { Logger } from "@scribe/kit";
import type {
  ActionItems,
  Decision,
  MeetingSummary,
  NextStep,
  Participant,
  SubjectSummary,
  Summariser,
  SummaryContext,
  SummaryInput,
  TopicSummary,
  Word,
} from "@scribe/ai";
import { computeMaxSubjects } from "../../packages/ai/src/summary/chunking";
import { longSummaryMarkdown } from "../../packages/ai/src/summary/markdown";
import { cleanTitle, matchParticipant, speakerName } from "../../packages/ai/src/summary/text";
import { STOPWORDS, TITLE_STOPWORDS } from "../../packages/ai/src/summary/stopwords";

export interface Sentence {
  speaker: number;
  /** Words as spoken, lower case where the recogniser gave no case. */
  text: string;
  start: number;
  end: number;
}

/**
 * Sentences from timed words: punctuation ends one when the recogniser gives it; a change of
 * speaker or a pause of `pause` seconds ends one always (pocketsphinx gives no punctuation).
 */
export function sentencesOf(words: readonly Word[], pause = 0.3, maxWords = 40): Sentence[] {
  const out: Sentence[] = [];
  let cur: (Sentence & { n: number }) | null = null;
  for (const w of words) {
    const gap = cur ? w.start - cur.end : 0;
    if (cur && (cur.speaker !== w.speaker || gap >= pause || cur.n >= maxWords)) {
      out.push(cur);
      cur = null;
    }
    if (!cur) cur = { speaker: w.speaker, text: w.text.trim(), start: w.start, end: w.end, n: 1 };
    else {
      cur.text += w.text;
      cur.end = w.end;
      cur.n++;
    }
    if (/[.?!…]$/.test(w.text.trim())) {
      out.push(cur);
      cur = null;
    }
  }
  if (cur) out.push(cur);
  return out.map(({ speaker, text, start, end }) => ({ speaker, text: text.trim(), start, end }));
}

const tokens = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];

/** Key phrases: maximal runs of content words (≤ 3), scored by the summed frequency of their words. */
export function keyPhrases(texts: readonly string[], stop: ReadonlySet<string> = STOPWORDS): { phrase: string; score: number }[] {
  const freq = new Map<string, number>();
  const phrases: string[][] = [];
  for (const text of texts) {
    // Clause punctuation separates phrases as stopwords do.
    for (const clause of text.split(/[.,;:?!…"()]+/)) {
      let run: string[] = [];
      for (const t of [...tokens(clause), ""]) {
        const content = t.length >= 3 && !stop.has(t) && !/^\d+$/.test(t) && !t.includes("'");
        if (content) {
          run.push(t);
          freq.set(t, (freq.get(t) ?? 0) + 1);
        } else {
          // Long runs are usually two phrases that met; keep their last three words (the head).
          if (run.length) phrases.push(run.slice(-3));
          run = [];
        }
      }
    }
  }
  const scored = new Map<string, number>();
  for (const p of phrases) {
    const key = p.join(" ");
    // Multi-word phrases name things ("budget report"); a bonus keeps them above their parts.
    const score = p.reduce((s, w) => s + (freq.get(w) ?? 0), 0) + (p.length > 1 ? 1 : 0);
    scored.set(key, Math.max(scored.get(key) ?? 0, score));
  }
  return [...scored.entries()]
    .map(([phrase, score]) => ({ phrase, score }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.phrase.split(" ").length - a.phrase.split(" ").length ||
        (a.phrase < b.phrase ? -1 : a.phrase > b.phrase ? 1 : 0),
    );
}

/** Top phrases that do not repeat a word already used. */
function distinctPhrases(ranked: readonly { phrase: string }[], n: number): string[] {
  const used = new Set<string>();
  const out: string[] = [];
  for (const { phrase } of ranked) {
    const ws = phrase.split(" ");
    if (ws.some((w) => used.has(w) || used.has(w.replace(/s$/, "")) || used.has(`${w}s`))) continue;
    ws.forEach((w) => used.add(w));
    out.push(phrase);
    if (out.length === n) break;
  }
  return out;
}

function titleFrom(phrases: readonly string[]): string {
  if (phrases.length === 0) return "";
  const t = phrases.length === 1 ? phrases[0]! : `${phrases.slice(0, -1).join(", ")} and ${phrases[phrases.length - 1]}`;
  return cleanTitle(t);
}

/** The `n` sentences with the most frequent content words, in spoken order. */
function topSentences(sentences: readonly Sentence[], n: number, focus?: ReadonlySet<string>): Sentence[] {
  const freq = new Map<string, number>();
  for (const s of sentences) for (const t of tokens(s.text)) if (!STOPWORDS.has(t)) freq.set(t, (freq.get(t) ?? 0) + 1);
  const scored = sentences.map((s, i) => {
    const ts = tokens(s.text);
    const content = ts.filter((t) => !STOPWORDS.has(t));
    const relevance = focus ? content.filter((t) => focus.has(t)).length : 1;
    const score =
      relevance === 0 ? -1 : content.reduce((a, t) => a + (freq.get(t) ?? 0), 0) / Math.sqrt(ts.length + 1) + (CUE.test(s.text) ? 1 : 0);
    return { s, i, score };
  });
  return scored
    .filter((x) => x.score >= 0 && tokens(x.s.text).length >= 4)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, n)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.s);
}

/** Sentences with a decision or commitment are worth a place in a summary. */
const CUE = /\b(decided|agreed|will|let's|action item|deadline)\b/i;

export class ExtractiveSummariser implements Summariser {
  readonly name = "extractive";
  constructor(private readonly logger?: Logger) {}

  topic(words: readonly Word[], ctx: SummaryContext): Promise<TopicSummary> {
    this.noteLanguage(ctx);
    const sentences = sentencesOf(words);
    const people = personWords(ctx.participants);
    const phrases = distinctPhrases(
      keyPhrases(
        sentences.map((s) => s.text),
        withExtra(STOPWORDS, people),
      ),
      2,
    );
    let title = titleFrom(phrases);
    if (title.length < 8) title = cleanTitle(`Discussion of ${phrases[0] ?? "the meeting"}`);
    const summary = topSentences(sentences, 2)
      .map((s) => render(s, ctx.participants))
      .join(" ");
    return Promise.resolve({ title, summary: summary || title });
  }

  title(topicTitles: readonly string[], ctx: SummaryContext): Promise<string | null> {
    if (topicTitles.length === 0) return Promise.resolve(null);
    const people = personWords(ctx.participants);
    const ranked = keyPhrases(
      topicTitles.flatMap((t) => t.split(/,| and /i)),
      withExtra(TITLE_STOPWORDS, people),
    );
    const title = titleFrom(distinctPhrases(ranked, 2));
    return Promise.resolve(title || cleanTitle(topicTitles[0]!));
  }

  summary(input: SummaryInput): Promise<MeetingSummary> {
    const { ctx } = input;
    this.noteLanguage(ctx);
    const sentences = sentencesOf(input.words);
    if (sentences.length === 0) return Promise.resolve({ subjects: [], shortSummary: null, longSummary: null, actionItems: null });
    const max = input.durationSeconds === undefined ? 6 : computeMaxSubjects(input.durationSeconds);
    const people = personWords(ctx.participants);
    const subjectsPhrases = distinctPhrases(
      keyPhrases(
        sentences.map((s) => s.text),
        withExtra(STOPWORDS, people),
      ),
      max,
    );
    const subjects: SubjectSummary[] = subjectsPhrases.map((phrase) => ({
      subject: cleanTitle(phrase),
      summary: topSentences(sentences, 2, new Set(phrase.split(" ")))
        .map((s) => render(s, ctx.participants))
        .join(" "),
    }));
    const recap = topSentences(sentences, 3)
      .map((s) => render(s, ctx.participants))
      .join(" ");
    const actionItems = extractActionItems(sentences, ctx.participants);
    // With no model to write paragraphs, the decisions and tasks themselves go into the summary.
    const sections = [...subjects];
    if (actionItems.decisions.length)
      sections.push({ subject: "Decisions", summary: actionItems.decisions.map((d) => `${d.decision}.`).join(" ") });
    if (actionItems.next_steps.length) {
      sections.push({
        subject: "Next steps",
        summary: actionItems.next_steps.map((s) => `${s.assigned_to ? `${s.assigned_to}: ` : ""}${s.task}.`).join(" "),
      });
    }
    return Promise.resolve({
      subjects,
      shortSummary: recap || null,
      longSummary: longSummaryMarkdown(recap, sections),
      actionItems,
    });
  }

  private noteLanguage(ctx: SummaryContext): void {
    if (ctx.sourceLanguage !== ctx.targetLanguage) {
      this.logger?.info(
        { source: ctx.sourceLanguage, target: ctx.targetLanguage },
        "extractive summaries stay in the transcript's language",
      );
    }
  }
}

function personWords(participants: readonly Participant[]): Set<string> {
  return new Set(participants.flatMap((p) => tokens(p.name)));
}

function withExtra(base: ReadonlySet<string>, extra: ReadonlySet<string>): Set<string> {
  return new Set([...base, ...extra]);
}

/** `Name: Sentence.` with the recogniser's lower case repaired where it is certain. */
function render(s: Sentence, participants: readonly Participant[]): string {
  const text = properCase(s.text, participants);
  const sentence = text.charAt(0).toUpperCase() + text.slice(1) + (/[.?!…]$/.test(text) ? "" : ".");
  return `${speakerName(s.speaker, participants)}: ${sentence}`;
}

const CALENDAR =
  /\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december)\b/g;

export function properCase(text: string, participants: readonly Participant[]): string {
  let out = text.replace(/\bi\b/g, "I").replace(/\bi'(m|ll|d|ve)\b/g, "I'$1");
  // "may" and "march" are also ordinary words; only capitalise them after a time preposition.
  out = out.replace(CALENDAR, (m, _w, offset: number) => {
    if ((m === "may" || m === "march") && !/\b(in|by|to|until|before|after|on|from|of|end of)\s+$/.test(out.slice(0, offset))) return m;
    return m.charAt(0).toUpperCase() + m.slice(1);
  });
  for (const name of personWords(participants)) {
    out = out.replace(new RegExp(`\\b${escapeRe(name)}\\b`, "gi"), name.charAt(0).toUpperCase() + name.slice(1));
  }
  return out;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// ---------------------------------------------------------------------------------------------
// Rule-based decisions and next steps.

const DEADLINE =
  /\b((?:by|before|until|on|no later than)\s+(?:the\s+)?(?:end\s+of\s+(?:the\s+)?(?:day|week|month|quarter|year)|next\s+(?:week|month|meeting|monday|tuesday|wednesday|thursday|friday)|tomorrow|tonight|today|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december)|next\s+(?:week|month|monday|tuesday|wednesday|thursday|friday)|tomorrow|end\s+of\s+(?:the\s+)?(?:day|week|month|quarter|year))\b/i;

/** A future commitment after its subject: " will", " is going to", or the contraction "'ll". */
const MODAL = "(?:\\s+(?:will|shall|is going to|are going to|am going to|needs? to|has to|have to|must|should)|'ll)";
/** A subject starting a new clause: where one extracted item stops and the next begins. */
const CLAUSE_BREAK = new RegExp(
  `\\s(?:and\\s+|then\\s+|so\\s+|but\\s+)?(?:i|we|you|he|she|they|[a-z]+)${MODAL}\\s|\\s(?:we|i)\\s+(?:also\\s+)?(?:decided|agreed)\\s|\\s(?:let's|let us)\\s`,
  "i",
);

interface Found {
  kind: "decision" | "task";
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- names the usual values
  who: "speaker" | "team" | string | null;
  what: string;
}

/** Decisions and tasks one sentence states, with who they belong to. */
export function findItems(sentenceText: string, participantNames: readonly string[]): Found[] {
  const text = ` ${sentenceText
    .toLowerCase()
    .replace(/[.?!…;:]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()} `;
  const names = participantNames.map((n) => n.toLowerCase()).filter((n) => /^[\p{L}' -]+$/u.test(n));
  const subject = `(i|we|you|the team|${names.map(escapeRe).join("|") || "\\u0000"})`;
  const found: { at: number; item: Found }[] = [];
  const rules: { re: RegExp; make: (m: RegExpExecArray) => Found | null }[] = [
    {
      re: new RegExp(
        `\\s${subject}\\s+(?:have\\s+|had\\s+)?(?:also\\s+|just\\s+)?(?:decided|agreed|chose|settled)\\s+(?:to|that|on)\\s+(.+)`,
        "gi",
      ),
      make: (m) => ({ kind: "decision", who: owner(m[1]!), what: m[2]! }),
    },
    {
      re: /\s(?:the\s+)?decision\s+(?:is|was)\s+(?:to\s+|that\s+)?(.+)/gi,
      make: (m) => ({ kind: "decision", who: null, what: m[1]! }),
    },
    {
      re: /\s(?:let's|let us)\s+((?:go with|use|choose|pick|keep|stick with)\s.+)/gi,
      make: (m) => ({ kind: "decision", who: "team", what: m[1]! }),
    },
    {
      re: /\s(?:let's|let us)\s+(?!(?:go with|use|choose|pick|keep|stick with)\s)(.+)/gi,
      make: (m) => ({ kind: "task", who: "team", what: m[1]! }),
    },
    {
      re: new RegExp(`\\s${subject}${MODAL}\\s+(?!(?:be|have|see|talk|hear)\\b)(.+)`, "gi"),
      make: (m) => ({ kind: "task", who: owner(m[1]!), what: m[2]! }),
    },
    {
      re: new RegExp(`\\saction items?\\s+(?:for\\s+${subject}\\s+)?(?:is\\s+|to\\s+)?(.+)`, "gi"),
      make: (m) => ({ kind: "task", who: m[1] ? owner(m[1]) : null, what: m[2]! }),
    },
  ];
  for (const rule of rules) {
    for (let m = rule.re.exec(text); m; m = rule.re.exec(text)) {
      const item = rule.make(m);
      if (item) found.push({ at: m.index, item: { ...item, what: clip(item.what) } });
      rule.re.lastIndex = m.index + 1;
    }
  }
  // Keep the earliest reading of each stretch of text: "we decided to X" is not also a task.
  found.sort((a, b) => a.at - b.at);
  const kept: Found[] = [];
  const seen = new Set<string>();
  for (const f of found) {
    if (!f.item.what || f.item.what.split(" ").length < 2) continue;
    const key = f.item.what;
    if ([...seen].some((s) => s.includes(key) || key.includes(s))) continue;
    seen.add(key);
    kept.push(f.item);
  }
  return kept;
}

function owner(subject: string): Found["who"] {
  const s = subject.toLowerCase();
  if (s === "i") return "speaker";
  if (s === "we" || s === "the team") return "team";
  if (s === "you") return null;
  return subject;
}

/** Up to the next clause with its own subject, at most 20 words. */
function clip(what: string): string {
  const m = CLAUSE_BREAK.exec(` ${what} `);
  const cut = m ? ` ${what} `.slice(0, m.index).trim() : what.trim();
  return cut.split(" ").slice(0, 20).join(" ").trim();
}

export function extractActionItems(sentences: readonly Sentence[], participants: readonly Participant[]): ActionItems {
  const decisions: Decision[] = [];
  const nextSteps: NextStep[] = [];
  const allNames = [...new Set(participants.flatMap((p) => [p.name, p.name.split(/\s+/)[0]!]))];
  for (const s of sentences) {
    const speaker = participants.find((p) => p.speaker === s.speaker) ?? null;
    for (const item of findItems(s.text, allNames)) {
      const who =
        item.who === "speaker"
          ? speaker
            ? { name: speaker.name, id: speaker.id ?? null }
            : { name: speakerName(s.speaker, participants), id: null }
          : item.who === "team" || item.who === null
            ? null
            : (matchParticipant(item.who, participants) ?? { name: item.who, id: null });
      const what = properCase(item.what, participants);
      const sentence = what.charAt(0).toUpperCase() + what.slice(1);
      if (item.kind === "decision") {
        decisions.push({ decision: sentence, rationale: null, decided_by: who?.name ?? null, decided_by_participant_id: who?.id ?? null });
      } else {
        const deadline = DEADLINE.exec(what)?.[0] ?? null;
        nextSteps.push({
          task: sentence,
          assigned_to: who?.name ?? (item.who === "team" ? "team" : null),
          assigned_to_participant_id: who?.id ?? null,
          deadline,
          context: `${speakerName(s.speaker, participants)}: ${properCase(s.text, participants)}`,
        });
      }
    }
  }
  return { decisions, next_steps: nextSteps };
}
