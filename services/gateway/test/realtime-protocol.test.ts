// The realtime wire rules (protocol.ts): bearer subprotocol parsing, the replay filter, and which bus
// events reach a user socket as what.
import { makeEvent } from "@scribe/contracts";
import { describe, expect, it } from "vitest";
import { bearerFromProtocols, relaysToTranscriptSocket, selectProtocol, userSocketMessage } from "../src/realtime/protocol";

const ev = (...args: Parameters<typeof makeEvent>) => makeEvent(...args).event;
const src = { source: "test" };

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

describe("relaysToTranscriptSocket", () => {
  it("skips stored TRANSCRIPT and STATUS entries and keeps every other stored one", () => {
    expect(relaysToTranscriptSocket("TRANSCRIPT", 5, 10)).toBe(false);
    expect(relaysToTranscriptSocket("STATUS", 10, 10)).toBe(false);
    for (const e of ["TOPIC", "FINAL_TITLE", "FINAL_LONG_SUMMARY", "FINAL_SHORT_SUMMARY", "ACTION_ITEMS", "DURATION", "WAVEFORM"] as const) {
      expect(relaysToTranscriptSocket(e, 3, 10)).toBe(true);
    }
  });
  it("relays every entry published after the socket connected", () => {
    expect(relaysToTranscriptSocket("TRANSCRIPT", 11, 10)).toBe(true);
    expect(relaysToTranscriptSocket("STATUS", 11, 10)).toBe(true);
  });
});

describe("userSocketMessage", () => {
  const appended = (event: "STATUS" | "FINAL_TITLE" | "DURATION" | "TOPIC", data: Record<string, unknown>, user_id: string | null = "u1") =>
    ev("transcript.event.appended", { transcript_id: "t1", user_id, run_id: null, event, data }, src);

  it("mirrors STATUS, FINAL_TITLE and DURATION to the owner as TRANSCRIPT_* with the transcript id", () => {
    expect(userSocketMessage(appended("STATUS", { value: "ended" }))).toEqual({
      userId: "u1",
      message: { event: "TRANSCRIPT_STATUS", data: { id: "t1", value: "ended" } },
    });
    expect(userSocketMessage(appended("FINAL_TITLE", { title: "T" }))?.message).toEqual({ event: "TRANSCRIPT_FINAL_TITLE", data: { id: "t1", title: "T" } });
    expect(userSocketMessage(appended("DURATION", { duration: 5 }))?.message).toEqual({ event: "TRANSCRIPT_DURATION", data: { id: "t1", duration: 5 } });
  });
  it("keeps the transcript id even when the entry's data carries an id", () => {
    expect(userSocketMessage(appended("STATUS", { value: "ended", id: "other" }))?.message.data.id).toBe("t1");
  });
  it("mirrors nothing else, and nothing of anonymous transcripts", () => {
    expect(userSocketMessage(appended("TOPIC", { id: "x" }))).toBeNull();
    expect(userSocketMessage(appended("STATUS", { value: "ended" }, null))).toBeNull();
  });
  it("announces lifecycle changes to their user", () => {
    for (const [action, event] of [["created", "TRANSCRIPT_CREATED"], ["deleted", "TRANSCRIPT_DELETED"], ["restored", "TRANSCRIPT_RESTORED"]] as const) {
      expect(userSocketMessage(ev("transcript.lifecycle.changed", { transcript_id: "t1", user_id: "u1", action }, src))).toEqual({
        userId: "u1",
        message: { event, data: { id: "t1" } },
      });
    }
  });
  it("ignores events that are not about user sockets", () => {
    expect(userSocketMessage(ev("transcript.topics.cleared", { transcript_id: "t1", version: 2 }, src))).toBeNull();
  });
});
