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
} from "../types";
import { computeMaxSubjects } from "./chunking";
import { longSummaryMarkdown } from "./markdown";
import { cleanTitle, matchParticipant, speakerName } from "./text";
import { STOPWORDS, TITLE_STOPWORDS } from "./stopwords";
import { infinitiveFirst, nounPhrases, splitDeadline, startsWithVerb } from "./nlp";

export interface Sentence {
  speaker: number;
  /** Words as spoken, lower case where the recogniser gave no case. */
  text: string;
  start: number;
  end: number;
}

/** A gap shorter than this (s) between two words is no turn change. */
const SAME_BREATH = 0.1;

/**
 * Sentences from timed words: punctuation ends one when the recogniser gives it; a pause of
 * `pause` seconds ends one always, and so does a change of speaker after any pause.
 */
export function sentencesOf(words: readonly Word[], pause = 0.3, maxWords = 40): Sentence[] {
  const out: Sentence[] = [];
  let cur: { words: Word[]; text: string } | null = null;
  const close = () => {
    if (cur) out.push({ speaker: mostWords(cur.words), text: cur.text.trim(), start: cur.words[0]!.start, end: cur.words.at(-1)!.end });
    cur = null;
  };
  for (const w of words) {
    const last = cur?.words.at(-1);
    const gap = last ? w.start - last.end : 0;
    // People take turns with a pause; a label change inside an unpunctuated run with no pause is
    // the diarizer's boundary landing mid-sentence ("I will add more disk | space to …").
    const newSpeaker = last !== undefined && last.speaker !== w.speaker && gap >= SAME_BREATH;
    if (cur && (newSpeaker || gap >= pause || cur.words.length >= maxWords)) close();
    cur ??= { words: [], text: "" };
    cur.words.push(w);
    cur.text += cur.words.length === 1 ? w.text.trim() : w.text;
    if (/[.?!…]$/.test(w.text.trim())) close();
  }
  close();
  return out;
}

/** The speaker of most of the words (the earliest of equals): a sentence run across a label change is theirs. */
function mostWords(words: readonly Word[]): number {
  const count = new Map<number, number>();
  for (const w of words) count.set(w.speaker, (count.get(w.speaker) ?? 0) + 1);
  let best = words[0]!.speaker;
  for (const [speaker, n] of count) if (n > count.get(best)!) best = speaker;
  return best;
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
    const phrases = rankedNounPhrases(sentences, ctx.participants).slice(0, 2);
    let title = titleFrom(phrases);
    if (title.length < 8) title = cleanTitle(`Discussion of ${phrases[0] ?? "the meeting"}`);
    const summary = topSentences(reportable(sentences, ctx.participants), 2)
      .map((s) => s.text)
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
    const phrases = rankedNounPhrases(sentences, ctx.participants);
    const reported = reportable(sentences, ctx.participants);
    const subjects: SubjectSummary[] = phrases.slice(0, max).map((phrase) => ({
      subject: cleanTitle(phrase),
      summary: topSentences(reported, 2, new Set(phrase.split(" ")))
        .map((s) => s.text)
        .join(" "),
    }));
    const actionItems = extractActionItems(sentences, ctx.participants);
    const recap = recapOf(sentences, phrases.slice(0, 3), actionItems, ctx.participants, reported);
    // With no model to write paragraphs, the decisions and tasks themselves go into the summary.
    const sections = [...subjects];
    if (actionItems.decisions.length)
      sections.push({ subject: "Decisions", summary: actionItems.decisions.map((d) => `${d.decision}.`).join(" ") });
    if (actionItems.next_steps.length) {
      sections.push({ subject: "Next steps", summary: actionItems.next_steps.map((s) => `${taskSentence(s)}.`).join(" ") });
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

/**
 * Noun phrases of what was said, best first: scored by how often their words were said (a bonus
 * keeps "payment system" above "system"), none repeating a word of a better one.
 */
function rankedNounPhrases(sentences: readonly Sentence[], participants: readonly Participant[]): string[] {
  const people = personWords(participants);
  const phrases = sentences.flatMap((s) => nounPhrases(s.text, people));
  const freq = new Map<string, number>();
  for (const p of phrases) for (const w of p.split(" ")) freq.set(w, (freq.get(w) ?? 0) + 1);
  const scored = new Map<string, number>();
  for (const p of phrases) {
    const ws = p.split(" ");
    scored.set(p, ws.reduce((a, w) => a + (freq.get(w) ?? 0), 0) + (ws.length > 1 ? 1 : 0));
  }
  const ranked = [...scored]
    .map(([phrase, score]) => ({ phrase, score }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.phrase.split(" ").length - a.phrase.split(" ").length ||
        (a.phrase < b.phrase ? -1 : a.phrase > b.phrase ? 1 : 0),
    );
  return distinctPhrases(ranked, 6);
}

/**
 * Sentences that read as prose without their speaker's name in front: "I will …" becomes
 * "Bob will …"; other sentences in the first person, questions and small talk are left out.
 */
function reportable(sentences: readonly Sentence[], participants: readonly Participant[]): Sentence[] {
  const out: Sentence[] = [];
  for (const s of sentences) {
    const name = speakerName(s.speaker, participants);
    const text = s.text
      .trim()
      .replace(/^(?:(?:yes|yeah|okay|ok|good|great|so|well|and|then)\b[,\s]*)+/i, "")
      .replace(/^i(?: will|'ll)\b/i, `${name} will`)
      .replace(/^i am going to\b/i, `${name} is going to`);
    if (/\?\s*$/.test(text) || /\b(i|i'm|i've|i'd|me|my)\b/i.test(text)) continue;
    if (tokens(text).length < 4) continue;
    out.push({ ...s, text: sentenceCase(properCase(text, participants)) });
  }
  return out;
}

function sentenceCase(text: string): string {
  const t = text.trim();
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.?!…]$/.test(t) ? "" : ".");
}

/** "Alice, Bob and Carol", "Alice and Bob". */
function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** "Alice will prepare the final report by Friday". */
function taskSentence(s: NextStep): string {
  const who = s.assigned_to === "team" ? "The team" : (s.assigned_to ?? "Someone");
  const task = s.task.charAt(0).toLowerCase() + s.task.slice(1);
  return `${who} will ${task}${s.deadline ? ` ${s.deadline}` : ""}`;
}

/**
 * The short summary, two or three sentences of prose: what was talked about and by whom, what was
 * decided, and the first tasks. A meeting with neither decisions nor tasks gets its most central
 * sentence instead.
 */
function recapOf(
  sentences: readonly Sentence[],
  phrases: readonly string[],
  items: ActionItems,
  participants: readonly Participant[],
  reported: readonly Sentence[],
): string {
  // Only people with a name: "Speaker 3" (often a diarizer's stray label) says nothing to a reader.
  // One person may hold several labels (a diarizer that split their voice): named once.
  const speakers = [
    ...new Set(
      [...new Set(sentences.map((s) => s.speaker))]
        .map((n) => participants.find((p) => p.speaker === n)?.name)
        .filter((n): n is string => Boolean(n)),
    ),
  ];
  const out: string[] = [];
  if (phrases.length) {
    const who = speakers.length && speakers.length <= 5 ? list(speakers) : "The meeting";
    out.push(`${who} ${speakers.length && speakers.length <= 5 ? "discussed" : "covered"} ${list(phrases.map((p) => `the ${p}`))}.`);
  }
  const decisions = items.decisions.slice(0, 2).map((d) => decisionClause(d.decision));
  if (decisions.length) out.push(`They decided ${decisions.join(" and ")}${items.decisions.length > 2 ? ", among other things" : ""}.`);
  const steps = items.next_steps.slice(0, 2).map(taskSentence);
  if (steps.length) {
    const more = items.next_steps.length - steps.length;
    out.push(`${steps.join(", and ")}${more > 0 ? `, with ${more} more task${more > 1 ? "s" : ""} below` : ""}.`);
  }
  if (out.length < 2) {
    const central = topSentences(reported, 1)[0];
    if (central) out.push(central.text);
  }
  return out.slice(0, 3).join(" ");
}

/** "to keep the price" when the decision starts with a verb, else "that the launch moves". */
function decisionClause(decision: string): string {
  const d = decision.charAt(0).toLowerCase() + decision.slice(1);
  return startsWithVerb(d) ? `to ${d}` : `that ${d}`;
}

function personWords(participants: readonly Participant[]): Set<string> {
  return new Set(participants.flatMap((p) => tokens(p.name)));
}

function withExtra(base: ReadonlySet<string>, extra: ReadonlySet<string>): Set<string> {
  return new Set([...base, ...extra]);
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

/** A future commitment after its subject: " will", " is going to", or the contraction "'ll". */
const MODAL = "(?:\\s+(?:will|shall|is going to|are going to|am going to|needs? to|has to|have to|must|should)|'ll)";
/** Obligations ("we must …", "we should …") said of everyone are not anybody's task. */
const TEAM_OBLIGATION = /^(?:we|the team)\s+(?:needs? to|has to|have to|must|should)\s/i;
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
      // "We agree to …" decides as much as "we agreed to …" (one person's "I agree that …" is an
      // opinion); "too" and "two" are how a recogniser often hears the "to" ("we agreed too offer …").
      re: new RegExp(
        `\\s${subject}\\s+(?:have\\s+|had\\s+)?(?:also\\s+|just\\s+)?(decided|agreed|chose|settled|decide|agree)\\s+(?:to|too|two|that|on)\\s+(.+)`,
        "gi",
      ),
      make: (m) =>
        /^(decide|agree)$/i.test(m[2]!) && owner(m[1]!) !== "team" ? null : { kind: "decision", who: owner(m[1]!), what: m[3]! },
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
      // "let's go through / look at / talk about …" steers the meeting itself; it is nobody's task.
      re: /\s(?:let's|let us)\s+(?!(?:go with|use|choose|pick|keep|stick with|go through|go over|look at|talk about|discuss|review|start|begin|move on|continue|recap|summarize|summarise|focus on|get started|see)\b)(.+)/gi,
      make: (m) => ({ kind: "task", who: "team", what: m[1]! }),
    },
    {
      re: new RegExp(`\\s${subject}${MODAL}\\s+(?!(?:be|have|see|talk|hear)\\b)(.+)`, "gi"),
      make: (m) => (TEAM_OBLIGATION.test(m[0].trim()) ? null : { kind: "task", who: owner(m[1]!), what: m[2]! }),
    },
    {
      // The recogniser's sentence break can fall between "I" and "will": a sentence that starts
      // with the modal is the speaker's own commitment.
      re: /^\s(?:and\s+|so\s+)?(?:will|'ll|am going to)\s+(?!(?:be|have|see|talk|hear)\b)(.+)/gi,
      make: (m) => ({ kind: "task", who: "speaker", what: m[1]! }),
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

/**
 * Names the recogniser misheard before a commitment ("race will …" for "Grace will …", "murray
 * will …" for "Maria will …"): a word one edit from a participant's name, or one that sounds the
 * same (Soundex) and starts alike, is taken to be that name.
 */
export function respellNames(text: string, names: readonly string[]): string {
  const firstNames = [...new Set(names.map((n) => n.split(/\s+/)[0]!.toLowerCase()))].filter((n) => n.length >= 4);
  if (firstNames.length === 0) return text;
  return text.replace(/\b([\p{L}]+)(?=(?:\s+will\b|'ll\b))/giu, (word: string) => {
    const w = word.toLowerCase();
    if (w.length < 3 || STOPWORDS.has(w) || firstNames.includes(w)) return word;
    const like = firstNames.filter(
      (n) => editDistance(w, n) <= 1 || (w[0] === n[0] && Math.abs(w.length - n.length) <= 2 && soundex(w) === soundex(n)),
    );
    return like.length === 1 ? like[0]! : word;
  });
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** American Soundex: first letter and three digits for the consonant groups that follow. */
function soundex(word: string): string {
  const code = (c: string) =>
    "bfpv".includes(c)
      ? "1"
      : "cgjkqsxz".includes(c)
        ? "2"
        : "dt".includes(c)
          ? "3"
          : c === "l"
            ? "4"
            : "mn".includes(c)
              ? "5"
              : c === "r"
                ? "6"
                : "";
  let out = word[0]!;
  let last = code(word[0]!);
  for (const c of word.slice(1)) {
    const d = code(c);
    if (d && d !== last) out += d;
    if (c !== "h" && c !== "w") last = d;
  }
  return (out + "000").slice(0, 4);
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function extractActionItems(sentences: readonly Sentence[], participants: readonly Participant[]): ActionItems {
  const decisions: Decision[] = [];
  const nextSteps: NextStep[] = [];
  const allNames = [...new Set(participants.flatMap((p) => [p.name, p.name.split(/\s+/)[0]!]))];
  for (const s of sentences) {
    const speaker = participants.find((p) => p.speaker === s.speaker) ?? null;
    for (const item of findItems(respellNames(s.text, allNames), allNames)) {
      const who =
        item.who === "speaker"
          ? speaker
            ? { name: speaker.name, id: speaker.id ?? null }
            : { name: speakerName(s.speaker, participants), id: null }
          : item.who === "team" || item.who === null
            ? null
            : (matchParticipant(item.who, participants) ?? { name: item.who, id: null });
      const what = properCase(item.what, participants);
      if (item.kind === "decision") {
        decisions.push({
          decision: capitalise(what),
          rationale: null,
          decided_by: who?.name ?? null,
          decided_by_participant_id: who?.id ?? null,
        });
      } else {
        // A task is something to do: "Bob will probably …" or a misheard "Bob will the …" is not one.
        if (!startsWithVerb(what)) continue;
        const { task, deadline } = splitDeadline(infinitiveFirst(what));
        nextSteps.push({
          task: capitalise(task),
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
