// The consent question the pipelines ask (§6.1), answered from the MEETINGS stream: the latest
// consent event of the meeting says whether any record denies consent.
import { makeEvent } from "@scribe/contracts";
import { connectBus, ensureStreams, type Bus } from "@scribe/kit";
import { TEST_NATS_URL, testPrefix } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consentFromMeetingEvents } from "../../src/pipelines/steps/consent";

let bus: Bus;
beforeAll(async () => {
  bus = await connectBus({ url: TEST_NATS_URL, prefix: testPrefix("pl-consent"), name: "pl-consent" });
  await ensureStreams(bus);
});
afterAll(async () => {
  for (const s of ["ROOMS", "MEETINGS", "CALENDAR", "RECORDINGS", "TRANSCRIPTS", "NOTIFICATIONS", "DLQ"])
    await bus.jsm.streams.delete(bus.stream(s)).catch(() => {});
  await bus.close();
});

async function answer(meetingId: string, given: boolean, anyDenial: boolean): Promise<void> {
  const { event, subject } = makeEvent(
    given ? "meeting.consent.given" : "meeting.consent.withdrawn",
    {
      consent_id: `c-${Math.random()}`,
      meeting_id: meetingId,
      room_id: "room-1",
      user_id: null,
      consent_given: given,
      consent_timestamp: new Date().toISOString(),
      any_denial: anyDenial,
      skip_consent: false,
    },
    { source: "test", time: new Date() },
  );
  await bus.js.publish(bus.subject(subject), JSON.stringify(event));
}

describe("consent from meeting events", () => {
  it("is no denial for a meeting nobody answered for", async () => {
    expect(await consentFromMeetingEvents(bus)("meeting-silent")).toBe(false);
  });

  it("follows the latest answer of either kind", async () => {
    const denied = consentFromMeetingEvents(bus);
    await answer("m-1", true, false);
    expect(await denied("m-1")).toBe(false);
    await answer("m-1", false, true);
    expect(await denied("m-1")).toBe(true);
    // A later "yes" from someone else does not lift the earlier denial: the event says so.
    await answer("m-1", true, true);
    expect(await denied("m-1")).toBe(true);
    // The denying user changed their answer: no record denies any more.
    await answer("m-1", true, false);
    expect(await denied("m-1")).toBe(false);
    // Other meetings are unaffected.
    await answer("m-2", false, true);
    expect(await denied("m-1")).toBe(false);
    expect(await denied("m-2")).toBe(true);
  });
});
