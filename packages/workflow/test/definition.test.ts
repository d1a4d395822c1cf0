import { AppError, Invalid, Unavailable } from "@scribe/kit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineQueue, describeError, isRetryable, NonRetryableError, queuesOf, retryDelayMs, workflow } from "../src/index";
import { allComplete, nextActions, type StepState } from "../src/plan";

const I = z.object({ tracks: z.array(z.string()) });
// The multitrack shape: per-track chain, a join, and a step after the join.
const wf = workflow("shape", I)
  .step("prepare", {}, async () => 1)
  .forEach("pad", { after: ["prepare"], items: (i) => i.tracks }, async () => "padded")
  .forEachOf("transcribe", { of: "pad" }, async () => ["w"])
  .step("merge", { after: ["transcribe"] }, async () => "merged")
  .step("mixdown", { after: ["pad"] }, async () => "mix")
  .build();
const defs = [...wf.steps.values()];
const row = (step: string, status: StepState["status"], index: number | null = null, itemCount: number | null = null): StepState => ({
  step,
  index,
  itemCount,
  status,
});

describe("planning the DAG", () => {
  it("starts with the steps that have no parents", () => {
    expect(nextActions(defs, [])).toEqual([{ type: "create", step: "prepare" }]);
  });

  it("expands a fan-out once its parents succeeded, and not before", () => {
    expect(nextActions(defs, [row("prepare", "running")])).toEqual([]);
    expect(nextActions(defs, [row("prepare", "succeeded")])).toEqual([{ type: "expand", step: "pad" }]);
  });

  it("opens the per-item step with the fan-out's item count and starts item i as soon as pad[i] succeeded", () => {
    const rows = [
      row("prepare", "succeeded"),
      row("pad", "running", null, 3),
      row("pad", "succeeded", 0),
      row("pad", "running", 1),
      row("pad", "succeeded", 2),
    ];
    expect(nextActions(defs, rows)).toEqual([{ type: "open", step: "transcribe", count: 3 }]);
    rows.push(row("transcribe", "running", null, 3));
    expect(nextActions(defs, rows)).toEqual([
      { type: "create_item", step: "transcribe", index: 0 },
      { type: "create_item", step: "transcribe", index: 2 },
    ]);
  });

  it("joins only when every item succeeded (the group completes first)", () => {
    const rows = [
      row("prepare", "succeeded"),
      row("pad", "running", null, 2),
      row("pad", "succeeded", 0),
      row("pad", "succeeded", 1),
      row("transcribe", "running", null, 2),
      row("transcribe", "succeeded", 0),
      row("transcribe", "queued", 1),
    ];
    expect(nextActions(defs, rows)).toEqual([{ type: "complete_group", step: "pad" }]);
    rows[1]!.status = "succeeded";
    expect(nextActions(defs, rows)).toEqual([{ type: "create", step: "mixdown" }]);
    rows[6]!.status = "succeeded";
    rows.push(row("mixdown", "queued"));
    expect(nextActions(defs, rows)).toEqual([{ type: "complete_group", step: "transcribe" }]);
    rows[4]!.status = "succeeded";
    expect(nextActions(defs, rows)).toEqual([{ type: "create", step: "merge" }]);
  });

  it("completes an empty fan-out at once", () => {
    const rows = [row("prepare", "succeeded"), row("pad", "running", null, 0)];
    expect(nextActions(defs, rows)).toEqual([
      { type: "complete_group", step: "pad" },
      { type: "open", step: "transcribe", count: 0 },
    ]);
  });

  it("is complete only when every declared step is", () => {
    const done = [
      row("prepare", "succeeded"),
      row("pad", "succeeded", null, 0),
      row("transcribe", "succeeded", null, 0),
      row("merge", "succeeded"),
    ];
    expect(allComplete(defs, done)).toBe(false);
    expect(allComplete(defs, [...done, row("mixdown", "succeeded")])).toBe(true);
  });
});

describe("declaring workflows", () => {
  it("refuses unknown parents, duplicate names and 'of' a single step", () => {
    const base = workflow("x", I).step("a", {}, async () => 1);
    expect(() => base.step("a", {}, async () => 2)).toThrow(/declared twice/);
    expect(() => workflow("x", I).step("b", { after: ["nope" as never] }, async () => 1)).toThrow(/unknown parent/);
    expect(() =>
      workflow("x", I)
        .step("a", {}, async () => 1)
        .forEachOf("b", { of: "a" as never }, async () => 1),
    ).toThrow(/fan-out/);
    expect(() => workflow("Bad Name", I)).toThrow(/workflow name/);
    expect(() => defineQueue("a.b", { concurrency: 1 })).toThrow(/subject token/);
  });

  it("collects queues and refuses one name with two limits", () => {
    const one = defineQueue("mix", { concurrency: 1 });
    const w1 = workflow("w1", I)
      .step("m", { queue: one }, async () => 1)
      .build();
    expect([...queuesOf([w1]).keys()]).toEqual(["mix"]);
    const w2 = workflow("w2", I)
      .step("m", { queue: defineQueue("mix", { concurrency: 3 }) }, async () => 1)
      .build();
    expect(() => queuesOf([w1, w2])).toThrow(/concurrency 1 and 3/);
  });
});

describe("retries", () => {
  it("backs off exponentially from the initial delay up to the cap", () => {
    const b = { initialMs: 1000, factor: 2, maxMs: 10_000 };
    expect([2, 3, 4, 5, 6].map((n) => retryDelayMs(n, b))).toEqual([1000, 2000, 4000, 8000, 10_000]);
  });

  it("retries transient errors and fails permanent ones at once", () => {
    expect(isRetryable(new Error("ECONNRESET"))).toBe(true);
    expect(isRetryable(new TypeError("fetch failed"))).toBe(true);
    expect(isRetryable(Unavailable("model server down"))).toBe(true);
    expect(isRetryable(new NonRetryableError("no"))).toBe(false);
    expect(isRetryable(Object.assign(new Error("corrupt"), { retryable: false }))).toBe(false);
    expect(isRetryable(Invalid("bad input"))).toBe(false);
    expect(isRetryable(new AppError("not_found", "gone"))).toBe(false);
    expect(isRetryable(z.string().safeParse(1).error)).toBe(false);
    expect(isRetryable(new Error("x"), () => false)).toBe(false);
    expect(isRetryable(new NonRetryableError("x"), () => undefined)).toBe(false);
  });

  it("describes errors with their name, without a bare 'Error:'", () => {
    expect(describeError(new Error("plain"))).toBe("plain");
    expect(describeError(new NonRetryableError("stop"))).toBe("NonRetryableError: stop");
    expect(describeError("text")).toBe("text");
    expect(describeError(new Error("x".repeat(5000))).length).toBeLessThan(4100);
  });
});
