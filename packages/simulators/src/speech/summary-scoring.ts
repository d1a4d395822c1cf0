// How a summary is scored against a scripted meeting's truth, in one place for the tests and
// `pnpm bench quality`. A found task matches a stated one when the owner is the same, the task's
// verb and most of its object words are there, and the deadline is the same when one was said.
// Matching is one-to-one: a task found twice counts once, the second copy against precision.
import type { ActionItems, NextStep } from "@scribe/ai";
import type { SummaryTruth, TruthTask } from "./summary-meetings";

/** Words that carry no task content (articles, prepositions, pronouns, auxiliaries). */
const FILLER = new Set(
  "a an the to for of in on at by with and or from into about this that these those it its their our my your his her them us we i you he she they will is are be".split(
    " ",
  ),
);

/** Lower case, content words only, with plural and tense endings cut so "tests"/"tested"/"test" agree. */
export function keyWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9']+/g) ?? []).filter((w) => !FILLER.has(w)).map(stem);
}

function stem(w: string): string {
  if (w.length > 5 && w.endsWith("ing")) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith("ed")) return w.slice(0, -2);
  if (w.length > 4 && w.endsWith("es")) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) return w.slice(0, -1);
  return w;
}

/** A deadline without its preposition: "by Friday" and "friday" are the same deadline. */
export function normaliseDue(due: string | null | undefined): string {
  return (due ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9 ]+/g, " ")
    .replace(/^\s*(by|before|on|in|until|no later than)\s+/, "")
    .replace(/\s+/g, " ")
    .trim();
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
  return normaliseDue(found.deadline) === due || found.task.toLowerCase().includes(due);
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
