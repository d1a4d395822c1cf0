// The realtime wire rules (protocol.ts): bearer subprotocol parsing, the replay filter, and which bus
// events reach a user socket as what.
import { makeEvent } from "@scribe/contracts";
import { describe, expect, it } from "vitest";
import { StoredLog, bearerFromProtocols, selectProtocol, userSocketMessage } from "../src/realtime/protocol";

const ev = (...args: Parameters<typeof makeEvent>) => makeEvent(...args).event;
const src = { source: "test", time: new Date() };

describe("bearerFromProtocols", () => {
  it("takes the token after a literal `bearer`, in any case, spaces trimmed", () => {
    expect(bearerFromProtocols("bearer, abc.def")).toBe("abc.def");
    expect(bearerFromProtocols("Bearer,abc")).toBe("abc");
  });
  it("finds no token without the header, without `bearer` first, or without a second item", () => {
    expect(bearerFromProtocols(undefined)).toBeNull();
    expect(bearerFromProtocols("abc, bearer")).toBeNull();
    expect(bearerFromProtocols("bearer")).toBeNull();
    expect(bearerFromProtocols("bearer, ")).toBeNull();
  });
});

describe("selectProtocol", () => {
  it("echoes bearer only, never the token", () => {
    expect(selectProtocol(["bearer", "token"])).toBe("bearer");
    expect(selectProtocol(["token"])).toBe(false);
    expect(selectProtocol([])).toBe(false);
  });
});

describe("StoredLog", () => {
  const entry = (
    event: "TRANSCRIPT" | "STATUS" | "TOPIC" | "FINAL_TITLE" | "WAVEFORM",
    run_id: string | null,
    data: Record<string, unknown> = {},
  ) => ({
    event,
    run_id,
    data,
  });

  it("replays every stored entry but TRANSCRIPT and STATUS, in order", () => {
    const log = new StoredLog();
    for (const e of [
      entry("STATUS", "r1"),
      entry("TRANSCRIPT", "r1"),
      entry("TOPIC", "r1", { id: 1 }),
      entry("WAVEFORM", "r1"),
      entry("FINAL_TITLE", "r1"),
    ])
      log.add(e);
    expect(log.take().map((m) => m.event)).toEqual(["TOPIC", "WAVEFORM", "FINAL_TITLE"]);
  });
  it("starts afresh when another run's entries begin (the run reset the log)", () => {
    const log = new StoredLog();
    log.add(entry("TOPIC", "r1", { id: "old" }));
    log.add(entry("FINAL_TITLE", null, { title: "kept with r1" }));
    log.add(entry("TOPIC", "r2", { id: "new" }));
    log.add(entry("FINAL_TITLE", null, { title: "after r2" }));
    expect(log.take()).toEqual([
      { event: "TOPIC", data: { id: "new" } },
      { event: "FINAL_TITLE", data: { title: "after r2" } },
    ]);
  });
  it("drops entries logged before the first run (a run starts with an empty log)", () => {
    const log = new StoredLog();
    log.add(entry("TOPIC", null, { id: "live" }));
    log.add(entry("TOPIC", "r1", { id: "file" }));
    expect(log.take()).toEqual([{ event: "TOPIC", data: { id: "file" } }]);
  });
  it("is empty once taken", () => {
    const log = new StoredLog();
    log.add(entry("TOPIC", "r1"));
    log.take();
    expect(log.take()).toEqual([]);
  });
});

describe("userSocketMessage", () => {
  const appended = (event: "STATUS" | "FINAL_TITLE" | "DURATION" | "TOPIC", data: Record<string, unknown>, user_id: string | null = "u1") =>
    ev("transcript.event.appended", { transcript_id: "t1", user_id, run_id: null, event, data, version: 4 }, src);

  it("mirrors STATUS, FINAL_TITLE and DURATION to the owner as TRANSCRIPT_* with the transcript id", () => {
    expect(userSocketMessage(appended("STATUS", { value: "ended" }))).toEqual({
      userId: "u1",
      message: { event: "TRANSCRIPT_STATUS", data: { id: "t1", value: "ended" } },
      // What the read model must hold before the owner hears it (read-model-gate.ts).
      transcriptId: "t1",
      version: 4,
    });
    expect(userSocketMessage(appended("FINAL_TITLE", { title: "T" }))?.message).toEqual({
      event: "TRANSCRIPT_FINAL_TITLE",
      data: { id: "t1", title: "T" },
    });
    expect(userSocketMessage(appended("DURATION", { duration: 5 }))?.message).toEqual({
      event: "TRANSCRIPT_DURATION",
      data: { id: "t1", duration: 5 },
    });
  });
  it("keeps the transcript id even when the entry's data carries an id", () => {
    expect(userSocketMessage(appended("STATUS", { value: "ended", id: "other" }))?.message.data.id).toBe("t1");
  });
  it("mirrors nothing else, and nothing of anonymous transcripts", () => {
    expect(userSocketMessage(appended("TOPIC", { id: "x" }))).toBeNull();
    expect(userSocketMessage(appended("STATUS", { value: "ended" }, null))).toBeNull();
  });
  it("announces lifecycle changes to their user", () => {
    for (const [action, event] of [
      ["created", "TRANSCRIPT_CREATED"],
      ["deleted", "TRANSCRIPT_DELETED"],
      ["restored", "TRANSCRIPT_RESTORED"],
    ] as const) {
      expect(
        userSocketMessage(ev("transcript.lifecycle.changed", { transcript_id: "t1", user_id: "u1", action, version: 2 }, src)),
      ).toEqual({
        userId: "u1",
        message: { event, data: { id: "t1" } },
        transcriptId: "t1",
        version: 2,
      });
    }
  });
  it("ignores events that are not about user sockets", () => {
    expect(userSocketMessage(ev("transcript.topics.cleared", { transcript_id: "t1", version: 2 }, src))).toBeNull();
  });
});
