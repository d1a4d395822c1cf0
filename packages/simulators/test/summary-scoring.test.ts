// The scorer `pnpm bench quality` and the summary tests share: fair to inflections and a recogniser's
// lower case, strict on owner, verb, object and deadline, and one found task per stated task.
import type { NextStep } from "@scribe/ai";
import { describe, expect, it } from "vitest";
import type { TruthTask } from "../src/speech/summary-meetings";
import { keyWords, scoreDecisions, scoreTasks, taskMatches } from "../src/speech/summary-scoring";

const step = (assigned_to: string | null, task: string, deadline: string | null = null): NextStep => ({
  task,
  assigned_to,
  assigned_to_participant_id: null,
  deadline,
  context: null,
});

const offer: TruthTask = { owner: "team", task: "prepare a new offer for the hotel group", due: "Monday" };

describe("task scoring", () => {
  it("reads inflected words by their roots, on both sides", () => {
    expect(keyWords("Preparing the offers")).toEqual(keyWords("prepare the offer"));
    expect(keyWords("tested the pages")).toEqual(keyWords("test the page"));
    expect(taskMatches(step("team", "Preparing to offer for the hotel group", "by Monday"), offer)).toBe(true);
  });

  it("takes a deadline in its own field or in the task, with or without its preposition and in any number", () => {
    expect(taskMatches(step("team", "Prepare a new offer for the hotel group", "monday"), offer)).toBe(true);
    expect(taskMatches(step("team", "Prepare a new offer for the hotel group by monday"), offer)).toBe(true);
    const office: TruthTask = { owner: "Frank", task: "get three offers for a smaller office", due: "next month" };
    expect(taskMatches(step("Frank", "Get three offers for a smaller office", "next months"), office)).toBe(true);
  });

  it("refuses another owner, another verb, too few object words or another deadline", () => {
    expect(taskMatches(step("Bob", "Prepare a new offer for the hotel group", "by Monday"), offer)).toBe(false);
    expect(taskMatches(step("team", "Send a new offer to the hotel group", "by Monday"), offer)).toBe(false);
    expect(taskMatches(step("team", "Prepare the slides", "by Monday"), offer)).toBe(false);
    expect(taskMatches(step("team", "Prepare a new offer for the hotel group", "by Friday"), offer)).toBe(false);
    expect(taskMatches(step("team", "Prepare a new offer for the hotel group"), offer)).toBe(false);
  });

  it("counts a task found twice once, the copy against precision", () => {
    const found = [
      step("team", "Prepare a new offer for the hotel group", "Monday"),
      step("team", "prepare new offer hotel group", "monday"),
    ];
    const score = scoreTasks(found, [offer]);
    expect(score).toMatchObject({ expected: 1, found: 2, matched: 1, recall: 1, precision: 0.5, missed: [] });
    expect(score.extra).toEqual([found[1]]);
  });
});

describe("decision scoring", () => {
  it("names a decision when one line holds most of its words, in any inflection", () => {
    const long = "# Summary\n\n**Decisions**\nMoving the search boxes to the center of the page.\nBlue buttons.";
    expect(scoreDecisions(long, ["move the search box to the center of the page", "use blue buttons on every page"])).toMatchObject({
      named: 1,
      missing: ["use blue buttons on every page"],
    });
  });
});
