// The web app's rooms, room page and API keys in a real browser (Debian's `chromium`, driven by
// playwright-core) against a running stack with both video-platform simulators, a real ICS feed
// server and a real webhook receiver: a room created and edited through the form (validation shown
// next to the field, calendar "Sync now" with its status, webhook test with the receiver's answer);
// the room page joins the meeting by embedding the platform's room URL, records the consent answer,
// lists upcoming calendar events and joins one early; a room's meeting recorded on the simulator
// becomes a transcript in the list; an API key is shown once, works, and is deleted.
// Screenshots of each page (desktop and 390 px) land in .data/screenshots/.
import { join } from "node:path";
import { createScribeClient, type ScribeClient } from "@scribe/client";
import { synthesizeMeeting, twoSpeakerStandup, type MeetingFixture } from "@scribe/simulators";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp, launchChromium, SCREENSHOTS, signInThroughForm, watchedPage } from "./support/browser";
import {
  calendarOf,
  CALENDAR_TEST_ENV,
  icsFeed,
  minutesFrom,
  roomLocation,
  startFeedServer,
  UI_BASE_URL,
  wholeSecondNow,
  type FeedServer,
} from "./support/calendar";
import { meetingEvents, startPlatformSystem, type PlatformSystem } from "./support/platforms";
import { WebhookReceiver } from "./support/webhook-receiver";

// pbkdf2_hmac('sha256', b'admin-pass', b'feedfacecafebeef', 1000), as in auth-password.e2e.test.ts.
const ADMIN_HASH = "pbkdf2:sha256:1000$feedfacecafebeef$4f6709c13dd5711fa65f1d151b403186d7389b61fe10e0e66d64a7d025155991";
const ADMIN = { email: "admin@example.com", password: "admin-pass" };
/** The simulators' room URLs are on these hosts; the browser gets a stand-in page for them. */
const PLATFORM_HOSTS = /^https:\/\/scribe-sim\.(daily\.co|whereby\.com)\//;

let sys: PlatformSystem;
let browser: Browser;
/** Signed in once through the form; every test's page shares its session. */
let session: BrowserContext;
let feeds: FeedServer;
let receiver: WebhookReceiver;
let fx: MeetingFixture;
/** The admin, through the typed client (test setup and checks). */
let admin: ScribeClient;
let webhookSecret: string | null = null;

beforeAll(async () => {
  buildWebApp();
  [fx, feeds] = await Promise.all([synthesizeMeeting(twoSpeakerStandup), startFeedServer()]);
  receiver = await new WebhookReceiver(() => webhookSecret).up();
  sys = await startPlatformSystem({
    label: "webrooms",
    services: ["rooms", "meetings", "calendar", "recordings", "transcription", "projection", "search", "notifier", "gateway"],
    env: { ...CALENDAR_TEST_ENV, UI_BASE_URL, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD_HASH: ADMIN_HASH },
  });
  const login = await createScribeClient({ baseUrl: sys.baseUrl }).POST("/v1/auth/login", { body: ADMIN });
  const token = login.data!.access_token;
  admin = createScribeClient({ baseUrl: sys.baseUrl, token });
  browser = await launchChromium();
  session = await browser.newContext();
  // The simulators' room URLs are not reachable from here: the embedded room gets a stand-in page.
  await session.route(PLATFORM_HOSTS, (route) => route.fulfill({ contentType: "text/html", body: "<p>The simulated video room</p>" }));
  const { page, problems } = await watchedPage(session);
  await signInThroughForm(page, sys.baseUrl, ADMIN);
  expect(problems).toEqual([]);
  await page.close();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
  await receiver?.down();
  await feeds?.close();
});

/** A watched page in the signed-in session. */
const signedInPage = () => watchedPage(session);

async function screenshots(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-mobile.png`), fullPage: true });
  if (size) await page.setViewportSize(size);
}

async function roomNamed(name: string) {
  const { data } = await admin.GET("/v1/rooms/name/{room_name}", { params: { path: { room_name: name } } });
  if (!data) throw new Error(`no room ${name}`);
  return data;
}

/** Fill the room form's fields a test cares about and submit it. */
async function createRoomThroughForm(page: Page, fields: { name: string; ics_url?: string; webhook_url?: string }): Promise<void> {
  await page.goto(`${sys.baseUrl}/rooms`);
  await page.getByRole("button", { name: "New room" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Name", { exact: true }).fill(fields.name);
  await dialog.getByLabel("Video platform").selectOption("daily");
  if (fields.ics_url) {
    await dialog.getByLabel("ICS calendar URL").fill(fields.ics_url);
    await dialog.getByLabel("Sync this calendar").check();
    await dialog.getByLabel("Sync every (minutes)").fill("1");
  }
  if (fields.webhook_url) await dialog.getByLabel("Webhook URL").fill(fields.webhook_url);
  await dialog.getByRole("button", { name: "Create room" }).click();
  await page.locator("article[data-room-id]", { hasText: fields.name }).waitFor();
}

describe("rooms", { timeout: 120_000 }, () => {
  /** Set when the feed is written: inside the early-join window (5 minutes), so the calendar opens its meeting now. */
  let eventStart: Date;

  it("shows the API's validation message next to the field it names", async () => {
    const { page, problems } = await signedInPage();
    await page.goto(`${sys.baseUrl}/rooms`);
    await page.getByText("No rooms yet.").waitFor();
    await screenshots(page, "rooms-empty");
    await page.getByRole("button", { name: "New room" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name", { exact: true }).fill("has space");
    await dialog.getByLabel("Sync every (minutes)").fill("0");
    await dialog.getByRole("button", { name: "Create room" }).click();
    // Each message sits in the field's own help text, which the input names as its description.
    await expect.poll(() => dialog.getByLabel("Name", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#name-help").textContent()).not.toContain("The room's address");
    // The API's message names the bound the interval broke.
    expect(await page.locator("#ics_fetch_interval-help").textContent()).toMatch(/\b1\b/);
    // The only failed API call is the refused create (which the browser also logs).
    expect(problems).toEqual([
      `422: ${sys.baseUrl}/v1/rooms`,
      "console: Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)",
    ]);
    await page.close();
  });

  it("creates a room through the form, lists it, syncs its calendar, tests its webhook and saves an edit", async () => {
    eventStart = minutesFrom(wholeSecondNow(), 4);
    feeds.set(
      "/weekly.ics",
      icsFeed([
        {
          id: "weekly-sync",
          summary: "Weekly sync",
          start: eventStart,
          end: minutesFrom(eventStart, 30),
          location: roomLocation("weekly"),
        },
      ]),
    );
    const { page, problems } = await signedInPage();
    await createRoomThroughForm(page, { name: "weekly", ics_url: feeds.url("/weekly.ics"), webhook_url: receiver.url });
    const room = await roomNamed("weekly");
    expect(room).toMatchObject({ platform: "daily", ics_enabled: true, ics_url: feeds.url("/weekly.ics"), webhook_url: receiver.url });
    webhookSecret = room.webhook_secret;
    await screenshots(page, "rooms");

    await page.getByRole("button", { name: "Edit weekly" }).click();
    const dialog = page.getByRole("dialog");
    const ics = dialog.getByTestId("ics-status");
    await ics.getByText("Not synced yet.").waitFor();
    await ics.getByRole("button", { name: "Sync now" }).click();
    await ics.getByRole("status").waitFor();
    expect(await ics.getByRole("status").textContent()).toBe("Synced: 1 event for this room (1 new, 0 updated, 0 removed)");
    await ics.getByText(/Last synced .* · 1 event$/).waitFor();

    const webhook = dialog.getByTestId("webhook-test");
    await webhook.getByRole("button", { name: "Test webhook" }).click();
    await webhook.getByRole("status").waitFor();
    expect(await webhook.getByRole("status").textContent()).toContain("Webhook test succeeded · HTTP 200");
    expect(receiver.received.map((r) => [r.body.event, r.body.room.name, r.signatureValid])).toEqual([["test", "weekly", true]]);
    await screenshots(page, "room-edit");

    await dialog.getByLabel("Recording starts").selectOption("prompt");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "detached" });
    const edited = await roomNamed("weekly");
    // Saving the form again leaves the webhook secret as it was.
    expect(edited).toMatchObject({ recording_trigger: "prompt", webhook_secret: webhookSecret });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("edits the video platform, the Zulip stream, topic and auto-post, and the e-mail address: kept after a reload and in the API", async () => {
    const { page, problems } = await signedInPage();
    await createRoomThroughForm(page, { name: "sharing" });
    const card = page.locator("article[data-room-id]", { hasText: "sharing" });
    const dialog = page.getByRole("dialog");
    const platform = dialog.getByLabel("Video platform");
    const autoPost = dialog.getByLabel("Post transcripts to Zulip");
    const stream = dialog.getByLabel("Zulip stream");
    const topic = dialog.getByLabel("Zulip topic");
    const email = dialog.getByLabel("E-mail transcripts to");
    /** Opens the room's form on a freshly loaded page, so what it shows is what the API stored. */
    async function editAfterReload() {
      await page.reload();
      await page.getByRole("button", { name: "Edit sharing" }).click();
      await dialog.waitFor();
    }
    async function save() {
      await dialog.getByRole("button", { name: "Save" }).click();
      await dialog.waitFor({ state: "detached" });
    }

    await page.getByRole("button", { name: "Edit sharing" }).click();
    await platform.selectOption("whereby");
    await autoPost.check();
    await stream.fill("engineering");
    await topic.fill("stand-ups");
    await email.fill("team@example.com");
    await save();
    await card.getByText("Whereby").waitFor();
    expect(await roomNamed("sharing")).toMatchObject({
      platform: "whereby",
      zulip_auto_post: true,
      zulip_stream: "engineering",
      zulip_topic: "stand-ups",
      email_transcript_to: "team@example.com",
    });
    await editAfterReload();
    expect(await platform.inputValue()).toBe("whereby");
    expect(await autoPost.isChecked()).toBe(true);
    expect(await stream.inputValue()).toBe("engineering");
    expect(await topic.inputValue()).toBe("stand-ups");
    expect(await email.inputValue()).toBe("team@example.com");
    await screenshots(page, "room-edit-sharing");

    // Each one undone: back to Daily, no Zulip post, no topic, no e-mail (stored as none, not as "").
    await platform.selectOption("daily");
    await autoPost.uncheck();
    await topic.fill("");
    await email.fill("");
    await save();
    await card.getByText("Daily").waitFor();
    expect(await roomNamed("sharing")).toMatchObject({
      platform: "daily",
      zulip_auto_post: false,
      zulip_stream: "engineering",
      zulip_topic: "",
      email_transcript_to: null,
    });
    await editAfterReload();
    expect(await platform.inputValue()).toBe("daily");
    expect(await autoPost.isChecked()).toBe(false);
    expect(await stream.inputValue()).toBe("engineering");
    expect(await topic.inputValue()).toBe("");
    expect(await email.inputValue()).toBe("");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("the room page embeds the meeting's platform room, records consent and joins an upcoming event early", async () => {
    const { page, problems } = await signedInPage();
    await page.goto(`${sys.baseUrl}/weekly`);
    const consent = page.getByRole("dialog", { name: "This meeting is recorded" });
    await consent.waitFor();
    const [meeting] = (await admin.GET("/v1/rooms/{room_name}/meetings/active", { params: { path: { room_name: "weekly" } } })).data!;
    expect(await page.getByTitle("Video meeting in weekly").getAttribute("src")).toMatch(
      new RegExp(`^https://scribe-sim\\.daily\\.co/${meeting!.room_name}\\?t=`),
    );
    await consent.getByRole("button", { name: "Yes, I agree" }).click();
    await consent.waitFor({ state: "detached" });
    await page.getByText("You agreed to this meeting being recorded").waitFor();
    await expect
      .poll(async () =>
        (await meetingEvents(sys, meeting!.id)).filter((e) => e.type.startsWith("meeting.consent.")).map((e) => e.data.consent_given),
      )
      .toEqual([true]);

    // The synced event is listed; its meeting is not open yet.
    const event = page.locator("article[data-event-id]", { hasText: "Weekly sync" });
    await event.getByText("Its meeting opens a few minutes before the start.").waitFor();
    await screenshots(page, "room");

    // The calendar opens the event's meeting ahead of its start: the page offers to join it early.
    const round = await calendarOf(sys).createUpcomingMeetings({ now: new Date() });
    expect(round).toEqual({ created: [expect.any(String)], failed: [] });
    await page.reload();
    await page.getByRole("dialog", { name: "This meeting is recorded" }).getByRole("button", { name: "Yes, I agree" }).click();
    await event.getByRole("button", { name: "Join early" }).click();
    const active = (await admin.GET("/v1/rooms/{room_name}/meetings/active", { params: { path: { room_name: "weekly" } } })).data!;
    const early = active.find((m) => m.calendar_event_id !== null)!;
    await event.getByText("You are in this meeting.").waitFor();
    expect(await page.getByTitle("Video meeting in weekly").getAttribute("src")).toMatch(
      new RegExp(`^https://scribe-sim\\.daily\\.co/${early.room_name}\\?t=`),
    );
    expect(problems).toEqual([]);
    await page.close();
  });

  it("journey: a room created in the app, joined, its meeting recorded on the platform, becomes a transcript in the list", async () => {
    const { page, problems } = await signedInPage();
    await createRoomThroughForm(page, { name: "journey" });
    await page.getByRole("link", { name: "journey" }).click();
    await page.getByRole("dialog", { name: "This meeting is recorded" }).getByRole("button", { name: "Yes, I agree" }).click();
    const src = await page.getByTitle("Video meeting in journey").getAttribute("src");
    const [meeting] = (await admin.GET("/v1/rooms/{room_name}/meetings/active", { params: { path: { room_name: "journey" } } })).data!;
    expect(src).toContain(`/${meeting!.room_name}?t=`);

    const rec = await sys.daily.finishRecording({
      roomName: meeting!.room_name,
      tracks: fx.truth.tracks.map((t) => ({ participantName: t.name, startOffsetSeconds: t.offset, audioFile: fx.trackPaths[t.speaker]! })),
    });
    expect(rec.webhook.status).toBe(200);

    // The list reads the search index, which follows the transcript's events.
    const room = await roomNamed("journey");
    await expect
      .poll(async () => (await admin.GET("/v1/transcripts/search", { params: { query: { q: "", room_id: room.id } } })).data?.total, {
        timeout: 60_000,
      })
      .toBe(1);
    await page.getByRole("link", { name: "Transcripts" }).click();
    const item = page.locator("article[data-transcript-id]", { hasText: "journey" });
    await item.waitFor();
    expect(await item.textContent()).toContain("room");

    // The list's filters: this room's transcripts, and by kind (a room's recording is not an upload).
    const items = page.locator("article[data-transcript-id]");
    await page.getByRole("combobox", { name: "Room", exact: true }).selectOption({ label: "journey" });
    await expect.poll(() => items.count()).toBe(1);
    await item.waitFor();
    await page.getByRole("combobox", { name: "Kind", exact: true }).selectOption({ label: "Uploads" });
    await page.getByText("No transcripts.").waitFor();
    await page.getByRole("combobox", { name: "Kind", exact: true }).selectOption({ label: "Rooms" });
    await item.waitFor();
    expect(await items.count()).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("reaches a room named like a page of the app or a path of the gateway at /rooms/<name>; the page keeps its path", async () => {
    const { page, problems } = await signedInPage();
    for (const name of ["live", "v1"]) {
      await createRoomThroughForm(page, { name });
      await page.getByRole("link", { name, exact: true }).click();
      await page.waitForURL(`${sys.baseUrl}/rooms/${name}`);
      await page.getByRole("heading", { name, exact: true }).waitFor();
      await page.getByRole("dialog", { name: "This meeting is recorded" }).getByRole("button", { name: "Yes, I agree" }).click();
      await page.getByTitle(`Video meeting in ${name}`).waitFor();
      await page.getByText("You agreed to this meeting being recorded").waitFor();
    }
    await page.goto(`${sys.baseUrl}/live`);
    await page.getByRole("heading", { name: "Record live" }).waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });

  it("loads every page with no console error and no failed API call, fitting a phone's width (screenshots of each)", async () => {
    const room = await roomNamed("journey");
    const { data } = await admin.GET("/v1/transcripts/search", { params: { query: { q: "", room_id: room.id } } });
    const transcriptId = data!.results[0]!.id;
    // [path, its page's heading (none: the owner's transcript page has a title field), screenshot name]
    const pages: [string, string | null, string][] = [
      ["/", "Transcripts", "page-home"],
      ["/transcripts", "Transcripts", "page-transcripts"],
      [`/transcripts/${transcriptId}`, null, "page-transcript"],
      ["/upload", "Upload a recording", "page-upload"],
      ["/live", "Record live", "page-live"],
      ["/rooms", "Rooms", "page-rooms"],
      ["/journey", "journey", "page-room"],
      ["/rooms/journey", "journey", "page-room-by-rooms-path"],
      ["/api-keys", "API keys", "page-api-keys"],
    ];
    for (const [path, heading, shot] of pages) {
      const { page, problems } = await signedInPage();
      await page.goto(`${sys.baseUrl}${path}`);
      await (heading ? page.getByRole("heading", { name: heading, exact: true, level: 1 }) : page.getByLabel("Title")).waitFor();
      await page.waitForLoadState("networkidle");
      expect(problems, path).toEqual([]);
      await screenshots(page, shot);
      // Responsive: on a phone's width nothing sticks out sideways (no horizontal scrolling); the message names what does.
      await page.setViewportSize({ width: 390, height: 844 });
      const overflow = await page.evaluate(() => {
        type El = { tagName: string; className: string; getBoundingClientRect(): { right: number }; children: ArrayLike<El> };
        const doc = (
          globalThis as unknown as {
            document: { documentElement: El & { scrollWidth: number }; querySelectorAll(s: string): ArrayLike<El> };
          }
        ).document;
        const wide = Array.from(doc.querySelectorAll("body *"))
          .filter(
            (e) => e.getBoundingClientRect().right > 390 && !Array.from(e.children).some((c) => c.getBoundingClientRect().right > 390),
          )
          .map((e) => `${e.tagName.toLowerCase()}.${String(e.className).replace(/ /g, ".")}`);
        return { width: doc.documentElement.scrollWidth, wide: wide.slice(0, 5) };
      });
      expect(overflow.width, `${path}: ${overflow.wide.join(", ")}`).toBeLessThanOrEqual(390);
      await page.close();
    }
  });

  it("deletes a room after a confirmation", async () => {
    const { page, problems } = await signedInPage();
    await page.goto(`${sys.baseUrl}/rooms`);
    await page.getByRole("button", { name: "Delete journey" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete room journey?" });
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "detached" });
    expect((await admin.GET("/v1/rooms/name/{room_name}", { params: { path: { room_name: "journey" } } })).response.status).toBe(200);
    await page.getByRole("button", { name: "Delete journey" }).click();
    await confirm.getByRole("button", { name: "Delete room" }).click();
    await page.locator("article[data-room-id]", { hasText: "journey" }).waitFor({ state: "detached" });
    expect((await admin.GET("/v1/rooms/name/{room_name}", { params: { path: { room_name: "journey" } } })).response.status).toBe(404);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe("API keys", { timeout: 120_000 }, () => {
  it("creates a key shown once that works against the API, lists it, and deletes it after a confirmation", async () => {
    const { page, problems } = await signedInPage();
    await page.goto(`${sys.baseUrl}/api-keys`);
    await page.getByText("No API keys yet.").waitFor();
    await page.getByLabel("Key name").fill("ci runner");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.getByLabel("New API key").inputValue();
    expect(key).toMatch(/^[A-Za-z0-9_-]{64}$/);
    await page.locator("tr[data-key-id]", { hasText: "ci runner" }).waitFor();
    await screenshots(page, "api-keys");

    const me = await sys.clientWithApiKey(key).GET("/v1/me");
    const adminId = (await admin.GET("/v1/me")).data!.sub;
    expect(me.data).toMatchObject({ sub: adminId });

    // Shown once: a fresh visit lists the key without its secret.
    await page.reload();
    await page.locator("tr[data-key-id]", { hasText: "ci runner" }).waitFor();
    expect(await page.getByLabel("New API key").count()).toBe(0);
    expect(await page.content()).not.toContain(key);

    await page.getByRole("button", { name: "Delete key ci runner" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete key" }).click();
    await page.getByText("No API keys yet.").waitFor();
    expect((await sys.clientWithApiKey(key).GET("/v1/me")).data).toBeNull();
    expect(problems).toEqual([]);
    await page.close();
  });
});
