// `scribe demo`: on a running dev system (`scribe dev`), signs in, creates a Daily room and a meeting,
// has the Daily simulator hold a three-person stand-up with synthesised voices, waits for the
// transcript while printing its status, then prints its title, summary, action items, URL and first
// lines. Each step is its own function so tests can run them one by one. Scribe's API is called through
// the typed client (@scribe/client); the simulator's control API with plain fetch.
import { createScribeClient, type ScribeClient } from "@scribe/client";
import type { MeetingScript } from "@scribe/simulators";
import { act, examples, type CliCommand } from "../command";
import { DEV_DEFAULTS } from "./dev";

/** A failure the user can act on: the message says what happened and what to do. */
export class DemoError extends Error {}

export interface DemoOptions {
  /** Gateway base URL. */
  apiUrl: string;
  /** Control API of the Daily simulator (`…/_control`) and its bearer key. */
  simulatorUrl: string;
  simulatorKey: string;
  email: string;
  password: string;
  /** A bearer token to use instead of signing in. */
  token?: string;
  uiBaseUrl: string;
  roomName: string;
  /** How long to wait for the finished transcript. */
  timeoutMs: number;
  pollMs: number;
  script?: MeetingScript;
  print: (line: string) => void;
}

export interface DemoTranscript {
  id: string;
  url: string;
  status: string;
  title: string | null;
  short_summary: string | null;
  action_items: {
    decisions: { decision: string }[];
    next_steps: { task: string; assigned_to: string | null; deadline: string | null }[];
  } | null;
  /** "Speaker: text" lines. */
  transcript: string;
}

/** A signed-in demo: its options, the bearer token and the API client that sends it. */
export interface Session {
  opts: DemoOptions;
  token: string;
  api: ScribeClient;
}

type Json = Record<string, unknown>;

function unreachable(e: unknown, what: string, url: string, notRunning: string): DemoError {
  const inner = (e as { cause?: { code?: string; message?: string } }).cause;
  const cause = inner?.code ?? inner?.message ?? (e as Error).message;
  return new DemoError(`${what}: cannot reach ${new URL(url).origin} (${cause}). ${notRunning}`);
}

async function call(url: string, init: RequestInit, what: string, notRunning: string): Promise<{ status: number; body: Json }> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    throw unreachable(e, what, url, notRunning);
  }
  const text = await res.text();
  let body: Json;
  try {
    body = text ? (JSON.parse(text) as Json) : {};
  } catch {
    body = { detail: text.slice(0, 300) };
  }
  return { status: res.status, body };
}

const detail = (body: unknown) => {
  const b = (body ?? {}) as Json;
  return String(b.detail === undefined ? JSON.stringify(body ?? null) : typeof b.detail === "string" ? b.detail : JSON.stringify(b.detail));
};
const START_HINT = "Start Scribe with `bash deploy/dev-up.sh` (or `pnpm scribe dev`), or point --url at it.";

/** A call to Scribe's API; not reaching it at all is a DemoError that says how to start it. */
async function reach<T>(opts: DemoOptions, what: string, pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (e) {
    throw unreachable(e, what, opts.apiUrl, START_HINT);
  }
}

/** Is Scribe there? Then sign in (or use the given token). */
export async function signIn(opts: DemoOptions): Promise<Session> {
  const anonymous = createScribeClient({ baseUrl: opts.apiUrl });
  const health = await reach(opts, "Scribe", anonymous.GET("/health"));
  if (health.response.status !== 200)
    throw new DemoError(`Scribe at ${opts.apiUrl} is not healthy: /health answered ${health.response.status}`);
  const session = (token: string): Session => ({ opts, token, api: createScribeClient({ baseUrl: opts.apiUrl, token }) });
  if (opts.token) return session(opts.token);
  const { data, error, response } = await reach(
    opts,
    "login",
    anonymous.POST("/v1/auth/login", { body: { email: opts.email, password: opts.password } }),
  );
  if (response.status === 404) {
    throw new DemoError(
      "login failed: this Scribe does not use password sign-in (AUTH_BACKEND is not password); pass --token <bearer token> instead",
    );
  }
  if (!data) {
    throw new DemoError(
      `login failed for ${opts.email}: ${response.status} ${detail(error)} (set --email/--password, or ADMIN_EMAIL/ADMIN_PASSWORD)`,
    );
  }
  opts.print(`signed in as ${opts.email}`);
  return session(data.access_token);
}

export interface DemoMeeting {
  room: { id: string; name: string };
  meeting: { id: string; room_name: string };
}

/** A Daily room and a meeting in it (the meetings service learns of new rooms from events, a moment later). */
export async function createMeeting(s: Session): Promise<DemoMeeting> {
  const created = await reach(s.opts, "creating the room", s.api.POST("/v1/rooms", { body: { name: s.opts.roomName, platform: "daily" } }));
  if (!created.data) throw new DemoError(`creating room ${s.opts.roomName} failed: ${created.response.status} ${detail(created.error)}`);
  const room = { id: created.data.id, name: created.data.name };
  s.opts.print(`room ${room.name} created (platform daily)`);
  const deadline = performance.now() + 30_000;
  for (;;) {
    const res = await reach(
      s.opts,
      "starting the meeting",
      s.api.POST("/v1/rooms/{room_name}/meeting", { params: { path: { room_name: room.name } }, body: {} }),
    );
    if (res.data) {
      const meeting = { id: res.data.id, room_name: res.data.room_name };
      s.opts.print(`meeting ${meeting.id} started (Daily room ${meeting.room_name})`);
      return { room, meeting };
    }
    // 404 "Room not found" until the meetings service has the room; anything else is final.
    if (res.response.status !== 404 || performance.now() > deadline) {
      throw new DemoError(`starting a meeting in ${room.name} failed: ${res.response.status} ${detail(res.error)}`);
    }
    await sleep(Math.min(s.opts.pollMs, 500));
  }
}

/** Ask the Daily simulator to hold the meeting: speakers join, talk (synthesised), leave; the recording goes to Scribe. */
export async function holdMeeting(s: Session, m: DemoMeeting, script: MeetingScript): Promise<void> {
  const { opts } = s;
  opts.print(
    `holding a ${script.speakers.length}-person meeting on the Daily simulator (${script.speakers.map((p) => p.name).join(", ")}); synthesising speech…`,
  );
  const res = await call(
    `${opts.simulatorUrl}/rooms/${encodeURIComponent(m.meeting.room_name)}/meeting`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${opts.simulatorKey}`, "content-type": "application/json" },
      body: JSON.stringify({ script }),
    },
    "Daily simulator",
    "Run Scribe with `pnpm scribe dev` (it starts the simulator), or point --simulator at it.",
  );
  if (res.status === 404) {
    throw new DemoError(
      `the Daily simulator at ${opts.simulatorUrl} does not know room ${m.meeting.room_name}: is Scribe's Daily platform (DAILY_API_URL) this simulator? \`pnpm scribe dev\` wires them together`,
    );
  }
  if (res.status !== 200) throw new DemoError(`the Daily simulator could not hold the meeting: ${res.status} ${detail(res.body)}`);
  const seconds = Number(res.body.duration_seconds);
  opts.print(
    `meeting held: ${seconds.toFixed(0)} s, ${String(res.body.words)} words; recording ${String(res.body.recording_id)} sent to Scribe`,
  );
}

/** Poll the transcript list for the meeting's transcript until it is ended, printing each status change. */
export async function waitForTranscript(s: Session, m: DemoMeeting): Promise<string> {
  const { opts } = s;
  const deadline = performance.now() + opts.timeoutMs;
  let last = "no transcript yet";
  opts.print(`waiting for the transcript (up to ${Math.round(opts.timeoutMs / 1000)} s)…`);
  for (;;) {
    const res = await reach(
      opts,
      "listing transcripts",
      s.api.GET("/v1/transcripts", { params: { query: { room_id: m.room.id, size: 100 } } }),
    );
    if (!res.data) throw new DemoError(`listing transcripts failed: ${res.response.status} ${detail(res.error)}`);
    const item = res.data.items.find((t) => t.meeting_id === m.meeting.id);
    const status = item ? item.status : "no transcript yet";
    if (status !== last) {
      opts.print(item ? `transcript ${item.id}: ${status}` : status);
      last = status;
    }
    if (item && status === "ended") return item.id;
    if (item && status === "error") {
      throw new DemoError(
        `processing of transcript ${item.id} failed (status error): see \`pnpm scribe runs list\` and \`pnpm scribe runs show <run id>\``,
      );
    }
    if (performance.now() > deadline) {
      throw new DemoError(
        `timed out after ${Math.round(opts.timeoutMs / 1000)} s waiting for the transcript of meeting ${m.meeting.id}; last status: ${last}. ` +
          (item
            ? ""
            : "No transcript was made from the recording: is the transcription service running (`scribe dev` runs every service)? ") +
          "See `pnpm scribe runs list --status running` (and `pnpm scribe runs show <id>`), `pnpm scribe streams`, or raise --timeout",
      );
    }
    await sleep(opts.pollMs);
  }
}

/** The finished transcript, as the demo prints it. */
export async function fetchTranscript(s: Session, id: string): Promise<DemoTranscript> {
  const res = await reach(
    s.opts,
    "reading the transcript",
    s.api.GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: id }, query: { transcript_format: "text" } } }),
  );
  if (!res.data) throw new DemoError(`reading transcript ${id} failed: ${res.response.status} ${detail(res.error)}`);
  const b = res.data;
  return {
    id,
    url: `${s.opts.uiBaseUrl.replace(/\/$/, "")}/transcripts/${id}`,
    status: b.status,
    title: b.title ?? null,
    short_summary: b.short_summary ?? null,
    action_items: b.action_items ?? null,
    transcript: typeof b.transcript === "string" ? b.transcript : "",
  };
}

export function renderTranscript(t: DemoTranscript, firstLines = 8): string {
  const out = [
    "",
    `Title:    ${t.title ?? "(none)"}`,
    `URL:      ${t.url}`,
    "",
    "Summary:",
    `  ${t.short_summary ?? "(none)"}`,
    "",
    "Action items:",
  ];
  const decisions = t.action_items?.decisions ?? [];
  const steps = t.action_items?.next_steps ?? [];
  if (decisions.length === 0 && steps.length === 0) out.push("  (none)");
  for (const d of decisions) out.push(`  decision: ${d.decision}`);
  for (const n of steps)
    out.push(`  next step: ${n.assigned_to ? `${n.assigned_to}: ` : ""}${n.task}${n.deadline ? ` (${n.deadline})` : ""}`);
  const lines = t.transcript.split("\n").filter(Boolean);
  out.push(
    "",
    `Transcript (first ${Math.min(firstLines, lines.length)} of ${lines.length} lines):`,
    ...lines.slice(0, firstLines).map((l) => `  ${l}`),
  );
  return out.join("\n");
}

/** The whole demo; resolves with the finished transcript (also printed). */
export async function runDemo(opts: DemoOptions): Promise<DemoTranscript> {
  const { demoStandup } = await import("@scribe/simulators");
  const session = await signIn(opts);
  const meeting = await createMeeting(session);
  await holdMeeting(session, meeting, opts.script ?? demoStandup);
  const id = await waitForTranscript(session, meeting);
  const transcript = await fetchTranscript(session, id);
  opts.print(renderTranscript(transcript));
  return transcript;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The command line's flags (commander's option names). */
export interface DemoFlags {
  url?: string;
  simulator?: string;
  simulatorKey?: string;
  email?: string;
  password?: string;
  token?: string;
  room?: string;
  timeout?: string;
  ui?: string;
}

/** Flags, then the environment, then the dev stack's defaults. */
export function demoOptions(
  flags: DemoFlags,
  env: Record<string, string | undefined>,
  print: (line: string) => void = console.log,
): DemoOptions {
  const pick = (flag: keyof DemoFlags, envName: string, fallback: string) => flags[flag] ?? (env[envName] || fallback);
  const timeout = Number(pick("timeout", "DEMO_TIMEOUT_SECONDS", "900"));
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw new DemoError(`--timeout: expected seconds, got ${JSON.stringify(flags.timeout ?? env.DEMO_TIMEOUT_SECONDS)}`);
  const token = flags.token ?? env.SCRIBE_TOKEN;
  const apiUrl = pick("url", "SCRIBE_URL", `http://127.0.0.1:${env.PORT || DEV_DEFAULTS.PORT}`).replace(/\/$/, "");
  return {
    apiUrl,
    simulatorUrl: pick(
      "simulator",
      "DAILY_SIMULATOR_URL",
      `http://127.0.0.1:${env.DEV_DAILY_PORT || DEV_DEFAULTS.DEV_DAILY_PORT}/_control`,
    ).replace(/\/$/, ""),
    simulatorKey: pick("simulatorKey", "DAILY_SIMULATOR_KEY", DEV_DEFAULTS.DAILY_API_KEY),
    email: pick("email", "ADMIN_EMAIL", DEV_DEFAULTS.ADMIN_EMAIL),
    password: pick("password", "ADMIN_PASSWORD", DEV_DEFAULTS.ADMIN_PASSWORD),
    ...(token ? { token } : {}),
    // The gateway serves the web app, so the transcript opens where the API is unless told otherwise.
    uiBaseUrl: pick("ui", "UI_BASE_URL", apiUrl),
    // A unique name for the demo's room, not a decision: the wall clock is the point.
    // eslint-disable-next-line no-restricted-syntax
    roomName: pick("room", "DEMO_ROOM", `demo-${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}`),
    timeoutMs: timeout * 1000,
    pollMs: 2000,
    print,
  };
}

export const demoCli: CliCommand = {
  name: "demo",
  register(program, ctx) {
    const cmd = program
      .command("demo")
      .summary("on a running `scribe dev`: a synthesised 3-person meeting, then its transcript")
      .description(
        "Sign in, create a Daily room and a meeting, have the Daily simulator hold a three-person stand-up with synthesised voices, wait for the transcript (printing its status), then print its title, summary, action items, URL and first lines.",
      )
      .option("--url <url>", `Scribe's API (env SCRIBE_URL; default http://127.0.0.1:${DEV_DEFAULTS.PORT})`)
      .option("--email <email>", `sign in as (env ADMIN_EMAIL; default ${DEV_DEFAULTS.ADMIN_EMAIL})`)
      .option("--password <password>", "password (env ADMIN_PASSWORD; default the dev admin's)")
      .option("--token <token>", "a bearer token instead of signing in (env SCRIBE_TOKEN)")
      .option("--simulator <url>", "the Daily simulator's control API (env DAILY_SIMULATOR_URL)")
      .option("--simulator-key <key>", "its bearer key (env DAILY_SIMULATOR_KEY)")
      .option("--room <name>", "room name (env DEMO_ROOM; default demo-<time>)")
      .option("--timeout <seconds>", "how long to wait for the transcript (env DEMO_TIMEOUT_SECONDS; default 900)")
      .option("--ui <url>", "base URL of the web app, for the printed link (env UI_BASE_URL)")
      .action(
        act(ctx, async (flags: DemoFlags) => {
          try {
            await runDemo(demoOptions(flags, ctx.env, ctx.io.out));
            return 0;
          } catch (e) {
            if (!(e instanceof DemoError)) throw e;
            ctx.io.err(`scribe demo: ${e.message}`);
            return 1;
          }
        }),
      );
    examples(cmd, "bash deploy/dev-up.sh   # in another terminal", "scribe demo", "scribe demo --url http://127.0.0.1:1250 --token $TOKEN");
  },
};
