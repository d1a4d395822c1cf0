// The dev stack and the demo (issue 11 item 4): `scribe dev` runs the simulators and every service
// wired together with a dev admin; `scribe demo` signs in, makes a Daily room and meeting, has the
// simulator hold a synthesised three-person stand-up, and prints the finished transcript, which must
// carry the script's words. The last test needs the transcription service (it turns the recording
// into the transcript); the others check each step on its own.
import { vocabularyShare } from "@scribe/ai";
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createScribeClient, ok } from "@scribe/client";
import { eventually } from "@scribe/kit/testing";
import {
  SERVICES,
  startDevStack,
  type DevStack,
  DemoError,
  createMeeting,
  demoOptions,
  fetchTranscript,
  holdMeeting,
  renderTranscript,
  runDemo,
  signIn,
  waitForTranscript,
  type DemoOptions,
} from "@scribe/cli";
import { demoStandup, normaliseWords } from "@scribe/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolated, unusedPort, type Isolated } from "./support/dev-stack";
import { streamEvents } from "./support/system";
import { TranscriptWriter, topicRecord, word } from "./support/transcripts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

let iso: Isolated;
let stack: DevStack;

function options(lines: string[], overrides: Partial<DemoOptions> = {}): DemoOptions {
  const opts = demoOptions({}, { SCRIBE_URL: stack.apiUrl, DAILY_SIMULATOR_URL: stack.daily.controlUrl }, (l) => lines.push(l));
  return { ...opts, pollMs: 250, ...overrides };
}

beforeAll(async () => {
  iso = await isolated("demo");
  stack = await startDevStack(iso.env);
});
afterAll(async () => {
  await stack?.stop();
  await iso?.drop();
});

describe("scribe dev", () => {
  it("runs every service with the simulators wired in, answers /health, and lets the dev admin sign in", async () => {
    expect(stack.process.services.map((s) => s.name)).toEqual(SERVICES.map((s) => s.name));
    const api = createScribeClient({ baseUrl: stack.apiUrl });
    await ok(api.GET("/health"));
    expect(stack.env).toMatchObject({
      AUTH_BACKEND: "password",
      DAILY_API_URL: stack.daily.url,
      WHEREBY_API_URL: stack.whereby.url,
      TRANSCRIPT_STORAGE_BACKEND: "local",
    });
    expect(stack.admin).toEqual({ email: "admin@example.com", password: "scribe-dev" });
    const banner = stack.banner();
    for (const part of [
      stack.apiUrl,
      "admin@example.com / scribe-dev",
      stack.daily.url,
      stack.daily.controlUrl,
      stack.whereby.url,
      iso.root,
    ])
      expect(banner).toContain(part);

    const login = await ok(api.POST("/v1/auth/login", { body: { email: "admin@example.com", password: "scribe-dev" } }));
    expect(login).toMatchObject({ token_type: "bearer", access_token: expect.any(String) });
  });

  it("runs from the command line (as deploy/dev-up.sh does), prints what runs where, and stops on SIGTERM", async () => {
    const own = await isolated("devcli");
    let child: ChildProcess | null = null;
    try {
      child = spawn(process.execPath, ["--import", "tsx", "packages/cli/src/main.ts", "dev", "rooms", "gateway"], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", ...own.env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));
      const api = await eventually(() => /API\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1], {
        timeoutMs: 60_000,
        message: `the banner of scribe dev; got:\n${out}`,
      });
      expect(out).toContain("sign in      admin@example.com / scribe-dev");
      expect(out).toMatch(/Daily sim\s+http:\/\/127\.0\.0\.1:\d+\/v1\s+control API http:\/\/127\.0\.0\.1:\d+\/_control/);
      expect(out).toContain("services     rooms, gateway");
      await ok(createScribeClient({ baseUrl: api }).GET("/health"));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      child = null;
    } finally {
      child?.kill("SIGKILL");
      await own.drop();
    }
  });
});

describe("scribe demo, step by step", () => {
  it("signs in, creates a Daily room and meeting, and the simulator's meeting reaches Scribe as a recording with a track per speaker", async () => {
    const lines: string[] = [];
    const session = await signIn(options(lines, { roomName: "steps" }));
    const m = await createMeeting(session);
    expect(m.room.name).toBe("steps");
    expect(m.meeting.room_name).toMatch(/^steps-\d{14}$/);
    expect(stack.daily.rooms.has(m.meeting.room_name)).toBe(true);

    await holdMeeting(session, m, demoStandup);
    expect(lines).toEqual([
      "signed in as admin@example.com",
      "room steps created (platform daily)",
      `meeting ${m.meeting.id} started (Daily room ${m.meeting.room_name})`,
      "holding a 3-person meeting on the Daily simulator (Alice, Bob, Carol); synthesising speech…",
      expect.stringMatching(/^meeting held: \d+ s, 155 words; recording [0-9a-f-]{36} sent to Scribe$/),
    ]);

    const available = await eventually(async () => {
      const evs = await streamEvents(iso.prefix, "MEETINGS");
      return evs.find((e) => e.subject === m.meeting.id && e.type === "recording.available");
    });
    const tracks = available.data.tracks as { kind: string; participant_name: string; start_offset_seconds: number }[];
    expect(tracks.map((t) => [t.kind, t.participant_name])).toEqual([
      ["audio", "Alice"],
      ["audio", "Bob"],
      ["audio", "Carol"],
    ]);
    expect(new Set(tracks.map((t) => t.start_offset_seconds)).size).toBe(3);
    expect(available.data).toMatchObject({ kind: "multitrack", platform: "daily", room_name: "steps" });
    await eventually(async () =>
      (await streamEvents(iso.prefix, "RECORDINGS")).some(
        (e) => e.type === "recording.ready" && (e.data as { meeting_id?: string }).meeting_id === m.meeting.id,
      ),
    );
  });

  it("says clearly when Scribe is not running, the login is wrong, or the transcript does not come in time", async () => {
    const lines: string[] = [];
    const closed = await unusedPort();
    await expect(signIn(options(lines, { apiUrl: `http://127.0.0.1:${closed}` }))).rejects.toThrow(
      `Scribe: cannot reach http://127.0.0.1:${closed} (ECONNREFUSED). Start Scribe with \`bash deploy/dev-up.sh\``,
    );
    const wrong = signIn(options(lines, { password: "not-it" }));
    await expect(wrong).rejects.toBeInstanceOf(DemoError);
    await expect(wrong).rejects.toThrow("login failed for admin@example.com: 401 Invalid email or password");

    // A meeting nobody held: no transcript ever comes.
    const session = await signIn(options(lines, { roomName: "never-held", timeoutMs: 500 }));
    const m = await createMeeting(session);
    await expect(waitForTranscript(session, m)).rejects.toThrow(
      /timed out after \d+ s waiting for the transcript of meeting .*; last status: no transcript yet\..*pnpm scribe runs list --status running/,
    );

    expect(demoOptions({ url: "http://h:1/", timeout: "30" }, {})).toMatchObject({
      apiUrl: "http://h:1",
      timeoutMs: 30_000,
      email: "admin@example.com",
    });
  });
  it("follows the meeting's transcript through its status changes, then prints title, summary, action items, URL and first lines", async () => {
    // The transcription service's events come from the test stand-in here: this checks the demo's
    // read side against the real gateway and read model on its own.
    const writer = await TranscriptWriter.connect(iso.prefix);
    try {
      const lines: string[] = [];
      const session = await signIn(options(lines, { roomName: "read-side" }));
      const m = await createMeeting(session);
      const me = (await ok(createScribeClient({ baseUrl: stack.apiUrl, token: session.token }).GET("/v1/me")))!;
      const waiting = waitForTranscript(session, m);
      const t = await writer.create({ status: "processing", meeting_id: m.meeting.id, room_id: m.room.id, user_id: me.sub, duration: 0 });
      await eventually(() => lines.includes(`transcript ${t.id}: processing`), { message: "the processing status printed" });
      await writer.upsertTopic(
        t.id,
        0,
        topicRecord([word(" We decided to move the launch.", 0.5, 2), word(" Bob will fix it by Friday.", 2.5, 4, 1)]),
      );
      await writer.update(t.id, {
        status: "ended",
        duration: 4000,
        title: "Spring release stand-up",
        short_summary: "The launch moves to March.",
        participants: [
          { id: "p0", speaker: 0, name: "Alice", user_id: null },
          { id: "p1", speaker: 1, name: "Bob", user_id: null },
        ],
        action_items: {
          decisions: [{ decision: "Move the launch to March", rationale: null, decided_by: null, decided_by_participant_id: null }],
          next_steps: [
            { task: "Fix the payment problems", assigned_to: "Bob", assigned_to_participant_id: null, deadline: "Friday", context: null },
          ],
        },
      });
      expect(await waiting).toBe(t.id);
      expect(lines.slice(-3)).toEqual([
        "waiting for the transcript (up to 900 s)…",
        `transcript ${t.id}: processing`,
        `transcript ${t.id}: ended`,
      ]);

      const printed = renderTranscript(await fetchTranscript(session, t.id));
      expect(printed).toBe(
        [
          "",
          "Title:    Spring release stand-up",
          `URL:      ${stack.apiUrl}/transcripts/${t.id}`,
          "",
          "Summary:",
          "  The launch moves to March.",
          "",
          "Action items:",
          "  decision: Move the launch to March",
          "  next step: Bob: Fix the payment problems (Friday)",
          "",
          "Transcript (first 2 of 2 lines):",
          "  Alice: We decided to move the launch.",
          "  Bob: Bob will fix it by Friday.",
        ].join("\n"),
      );
    } finally {
      await writer.close();
    }
  });
});

describe("scribe demo, end to end", () => {
  it("prints the finished transcript's title, summary, action items, URL and first lines, carrying the script's words", async () => {
    const lines: string[] = [];
    const t = await runDemo(options(lines, { roomName: "standup", timeoutMs: 480_000, pollMs: 1000 }));
    const printed = lines.join("\n");
    expect(t.status).toBe("ended");
    expect(t.url).toBe(`${stack.apiUrl}/transcripts/${t.id}`);
    expect(printed).toContain(`URL:      ${t.url}`);
    expect(printed).toContain(`Title:    ${t.title}`);
    expect(printed).toContain(t.short_summary!);
    // Title and summary come from what was said (offline summariser), not from a placeholder.
    const said = `${t.transcript} discussion of`;
    expect(vocabularyShare(t.title ?? "", said), `title ${t.title}`).toBeGreaterThanOrEqual(0.6);
    expect(vocabularyShare(t.short_summary ?? "", said), `summary ${t.short_summary}`).toBeGreaterThanOrEqual(0.8);
    expect(t.action_items?.next_steps.length).toBeGreaterThan(0);

    // Each line is "Speaker: text"; every speaker of the script speaks.
    const body = t.transcript.split("\n").filter(Boolean);
    for (const name of ["Alice", "Bob", "Carol"]) expect(body.some((l) => l.startsWith(`${name}: `))).toBe(true);
    expect(printed).toContain(`  ${body[0]}`);
    const heard = new Set(normaliseWords(body.map((l) => l.slice(l.indexOf(": ") + 2)).join(" ")));
    const script = demoStandup.turns.flatMap((turn) => normaliseWords(turn.text));
    const share = script.filter((w) => heard.has(w)).length / script.length;
    // The offline recogniser hears ~95 % of these words on the separate tracks.
    expect(share).toBeGreaterThan(0.7);
  }, 600_000);
});
