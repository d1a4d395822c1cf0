import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineQueue, ensureQueueConsumer, ensureWorkflowStream, queueDurable, stepSubject, WORKFLOW_STREAM } from "../src/index";
import { workflowTestEnv, type WorkflowTestEnv } from "../src/testing";

let env: WorkflowTestEnv;
beforeAll(async () => {
  env = await workflowTestEnv("wfbus");
});
afterAll(async () => env.close());

describe("WORKFLOW stream and queue consumers", () => {
  it("is a prefixed work-queue stream, created idempotently", async () => {
    const name = await ensureWorkflowStream(env.bus);
    await ensureWorkflowStream(env.bus);
    expect(name).toBe(env.bus.stream(WORKFLOW_STREAM));
    const info = await env.bus.jsm.streams.info(name);
    expect(info.config.retention).toBe("workqueue");
    expect(info.config.subjects).toEqual([`${env.prefix}.workflow.>`]);
    expect(stepSubject("transcription", "mixdown", "r1")).toBe("workflow.transcription.mixdown.r1");
  });

  it("has one durable consumer per schema and queue whose max_ack_pending follows the queue's concurrency", async () => {
    const stream = await ensureWorkflowStream(env.bus);
    const durable = await ensureQueueConsumer(env.bus, {
      schema: "transcription",
      queue: defineQueue("mixdown", { concurrency: 1 }),
      ackWaitMs: 30_000,
    });
    expect(durable).toBe(queueDurable("transcription", "mixdown"));
    let info = await env.bus.jsm.consumers.info(stream, durable);
    expect(info.config).toMatchObject({
      max_ack_pending: 1,
      filter_subject: `${env.prefix}.workflow.transcription.mixdown.>`,
      max_deliver: -1,
    });
    await ensureQueueConsumer(env.bus, { schema: "transcription", queue: defineQueue("mixdown", { concurrency: 2 }), ackWaitMs: 20_000 });
    info = await env.bus.jsm.consumers.info(stream, durable);
    expect(info.config).toMatchObject({ max_ack_pending: 2, ack_wait: 20_000 * 1_000_000 });
    // A second queue's filter must not overlap the first's (work-queue streams refuse that).
    await ensureQueueConsumer(env.bus, {
      schema: "transcription",
      queue: defineQueue("mixdown-gpu", { concurrency: 1 }),
      ackWaitMs: 30_000,
    });
  });
});
