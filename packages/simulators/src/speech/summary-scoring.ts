// How a summary is scored against a scripted meeting's truth, in one place for the tests and
// `pnpm bench quality`. A found task matches a stated one when the owner is the same, the task's
// verb and most of its object words are there, and the deadline is the same when one was said.
// Matching is one-to-one: a task found twice counts once, the second copy against precision.
import type { ActionItems, NextStep } from "@scribe/ai";
import nlp from "compromise";
import type { SummaryTruth, TruthTask } from "./summary-meetings";

/** Words that carry no task content (articles, prepositions, pronouns, auxiliaries). */
const FILLER = new Set(
  "a an the to for of in on at by with and or from into about this that these those it its their our my your his her them us we i you he she they will is are be".split(
    " ",
  ),
);

/**
 * Content words as their roots, so inflections agree: "preparing"/"prepared"/"prepare",
 * "tests"/"test", "offers"/"offer". compromise tags the words in their sentence and gives each its
 * root (a verb's infinitive, a noun's singular), the same for the truth and for what a summariser
 * wrote, and the same for the script's capitalised text and a recogniser's lower-case words.
 */
export function keyWords(text: string): string[] {
  return roots(text).filter((w) => !FILLER.has(w));
}

function roots(text: string): string[] {
  const doc = nlp(text.toLowerCase());
  doc.compute("root");
  const terms = (doc.json() as { terms: { normal: string; root?: string }[] }[]).flatMap((s) => s.terms);
  return terms.flatMap((t) => (t.root ?? t.normal).match(/[a-z0-9']+/g) ?? []);
}

/** A deadline without its preposition, in roots: "by Friday" and "friday" are the same deadline, and so are "next months" and "next month". */
export function normaliseDue(due: string | null | undefined): string {
  return roots((due ?? "").replace(/^\s*(by|before|on|in|until|no later than)\s+/i, "")).join(" ");
}

/** Share of the truth's object words (all but the verb) required in the found task. */
const OBJECT_OVERLAP = 0.6;

export function taskMatches(found: NextStep, truth: TruthTask): boolean {
  const owner = (found.assigned_to ?? "team").toLowerCase();
  if (owner !== truth.owner.toLowerCase()) return false;
  const foundWords = new Set(keyWords(found.task));
  const [verb, ...object] = keyWords(truth.task);
  if (!verb || !foundWords.has(verb)) return false;
  const shared = object.filter((w) => foundWords.has(w)).length;
  if (object.length && shared / object.length < OBJECT_OVERLAP) return false;
  if (truth.due === undefined) return true;
  // The deadline may sit in its own field or inside the task text; either says it.
  const due = normaliseDue(truth.due);
  return normaliseDue(found.deadline) === due || ` ${roots(found.task).join(" ")} `.includes(` ${due} `);
}

export interface TaskScore {
  expected: number;
  found: number;
  matched: number;
  /** matched / expected (1 when nothing was expected). */
  recall: number;
  /** matched / found (1 when nothing was found). */
  precision: number;
  missed: TruthTask[];
  extra: NextStep[];
}

export function scoreTasks(found: readonly NextStep[], truth: readonly TruthTask[]): TaskScore {
  const used = new Set<number>();
  const missed: TruthTask[] = [];
  for (const t of truth) {
    const i = found.findIndex((f, j) => !used.has(j) && taskMatches(f, t));
    if (i < 0) missed.push(t);
    else used.add(i);
  }
  const matched = used.size;
  return {
    expected: truth.length,
    found: found.length,
    matched,
    recall: truth.length ? matched / truth.length : 1,
    precision: found.length ? matched / found.length : 1,
    missed,
    extra: found.filter((_, j) => !used.has(j)),
  };
}

/** Share of a decision's words a sentence must hold to name it. */
const DECISION_OVERLAP = 0.75;

export interface DecisionScore {
  expected: number;
  named: number;
  coverage: number;
  missing: string[];
}

/** Which decisions some sentence or line of `text` (a long summary) names. */
export function scoreDecisions(text: string, decisions: readonly string[]): DecisionScore {
  const sentences = text.split(/[.!?\n]+/).map((s) => new Set(keyWords(s)));
  const missing = decisions.filter((d) => {
    const words = keyWords(d);
    return !sentences.some((s) => words.filter((w) => s.has(w)).length / words.length >= DECISION_OVERLAP);
  });
  const named = decisions.length - missing.length;
  return { expected: decisions.length, named, coverage: decisions.length ? named / decisions.length : 1, missing };
}

/** Both scores of one meeting's summary. */
export function scoreSummary(
  summary: { actionItems: ActionItems | null; longSummary: string | null },
  truth: SummaryTruth,
): { tasks: TaskScore; decisions: DecisionScore } {
  return {
    tasks: scoreTasks(summary.actionItems?.next_steps ?? [], truth.tasks),
    decisions: scoreDecisions(summary.longSummary ?? "", truth.decisions),
  };
}
