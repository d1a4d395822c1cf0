// Machinery of the permission table (test/permissions.e2e.test.ts): deployments (auth mode ×
// PUBLIC_MODE), caller kinds, operations and rows. A row is one line: an operation, the deployments
// it holds in, and per caller kind the status (and, for some, a check of what the body reveals).
import { ANONYMOUS, type Caller } from "@scribe/contracts";
import { connectBus, rpcCall, type Bus, StorageConfig } from "@scribe/kit";
import { TEST_NATS_URL } from "@scribe/kit/testing";
import { hashPassword } from "@scribe/gateway";
import { expect } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDailySimulator, type DailySimulator, startSmtpCapture, startZulipSimulator } from "@scribe/simulators";
import { CALENDAR_TEST_ENV } from "./calendar";
import { startSystem, type AuthMode, type Client, type TestSystem } from "./system";

export const DEPLOYMENTS = {
  password: { auth: "password", publicMode: false },
  "password+public": { auth: "password", publicMode: true },
  jwt: { auth: "jwt", publicMode: false },
  none: { auth: "none", publicMode: false },
  "none+public": { auth: "none", publicMode: true },
} as const satisfies Record<string, { auth: AuthMode; publicMode: boolean }>;
export type Deployment = keyof typeof DEPLOYMENTS;

/**
 * Who calls: nobody, the owner of the fixtures, another user, and each of them through an API key
 * instead of a token. With AUTH_BACKEND=none they all send their credentials and are all anonymous.
 */
export const CALLER_KINDS = ["anon", "owner", "other", "ownerKey", "otherKey"] as const;
export type CallerKind = (typeof CALLER_KINDS)[number];
/** The user a caller kind acts as. */
export const USER_OF: Record<CallerKind, "owner" | "other" | null> = {
  anon: null,
  owner: "owner",
  other: "other",
  ownerKey: "owner",
  otherKey: "other",
};

export const ADMIN = { email: "admin@example.com", password: "permission-table-password" };

/**
 * What every world has: rooms owned by "owner" (one private, one shared, both with a webhook) and
 * an active meeting (on the Daily simulator) in the private room.
 */
export interface Fixtures {
  privateRoom: { id: string; name: string };
  sharedRoom: { id: string; name: string };
  meeting: { id: string; roomName: string };
  /** Transcripts with mp3 and waveform stored: the owner's (private, public) and an anonymous one. */
  transcripts: { private: string; public: string; anonymous: string };
  /** An ongoing calendar event of the private room (synced from its ICS feed), without a meeting at first. */
  calendarEvent: { id: string };
}

export interface World {
  deployment: Deployment;
  sys: TestSystem;
  /** The video platform A simulator the meetings service talks to. */
  daily: DailySimulator;
  /** Storage settings of the world (local driver in a temporary folder). */
  storage: StorageConfig;
  bus: Bus;
  /** Local user ids of "owner" and "other" (jwt: the ids created by their first tokens). */
  ids: { owner: string; other: string };
  clients: Record<CallerKind, Client>;
  fixtures: Fixtures;
  /** The identity services would receive for a user (to seed data over request/reply, in any mode). */
  callerOf(user: "owner" | "other" | null): Caller;
  /** A name no other fixture uses. */
  unique(prefix: string): string;
}

export interface RequestSpec {
  path: string;
  init?: RequestInit;
}

export interface Op {
  /** `METHOD /path` as in /openapi.json, so the table can show every operation has a row. */
  route: string;
  /** Which variant of the route this op exercises (e.g. "private room"). */
  variant?: string;
  /** Builds the request; may create what it needs (destructive ops make a fresh object each time). */
  request(w: World, caller: CallerKind): RequestSpec | Promise<RequestSpec>;
}

/** Response bodies are checked field by field; JSON of any shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;
export type Check = (body: Body, ctx: { w: World; caller: CallerKind }) => void;
export type Expectation = number | readonly [number, Check];
export interface Row {
  op: Op;
  in: readonly Deployment[];
  expect: Record<CallerKind, Expectation>;
}

export function row(op: Op, deployments: readonly Deployment[], expect: Record<CallerKind, Expectation>): Row {
  return { op, in: deployments, expect };
}
/** The same answer for every caller kind. */
export function everyone(e: Expectation): Record<CallerKind, Expectation> {
  return { anon: e, owner: e, other: e, ownerKey: e, otherKey: e };
}
/** `mine` for the owner (token or key), `theirs` for anyone else. */
export function ownerVsOthers(mine: Expectation, theirs: Expectation, anon: Expectation = theirs): Record<CallerKind, Expectation> {
  return { anon, owner: mine, ownerKey: mine, other: theirs, otherKey: theirs };
}
/** `signedIn` for every user (token or key), `anon` for nobody. */
export function usersVsAnon(signedIn: Expectation, anon: Expectation): Record<CallerKind, Expectation> {
  return { anon, owner: signedIn, ownerKey: signedIn, other: signedIn, otherKey: signedIn };
}

export interface Case {
  deployment: Deployment;
  caller: CallerKind;
  status: number;
  check: Check | null;
  op: Op;
  title: string;
}

/** One test case per row × deployment × caller kind. */
export function expand(rows: readonly Row[]): Case[] {
  return rows.flatMap((r) =>
    r.in.flatMap((deployment) =>
      CALLER_KINDS.map((caller) => {
        const e = r.expect[caller];
        const [status, check] = typeof e === "number" ? [e, null] : e;
        const name = r.op.variant ? `${r.op.route} (${r.op.variant})` : r.op.route;
        return { deployment, caller, status, check, op: r.op, title: `${deployment} · ${name} · ${caller} → ${status}` };
      }),
    ),
  );
}

export async function runCase(w: World, c: Case): Promise<void> {
  const { path, init = {} } = await c.op.request(w, c.caller);
  const res = await w.clients[c.caller](path, init);
  const text = await res.text();
  let body: Body = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: checks see the text
  }
  expect(res.status, `${c.title}: ${text.slice(0, 300)}`).toBe(c.status);
  c.check?.(body, { w, caller: c.caller });
}

/** Starts one system for a deployment, with its two users, their API keys and the fixtures. */
export async function startWorld(deployment: Deployment, seed: (w: Omit<World, "fixtures">) => Promise<Fixtures>): Promise<World> {
  const { auth, publicMode } = DEPLOYMENTS[deployment];
  const storageRoot = await mkdtemp(join(tmpdir(), "scribe-perm-"));
  const daily = await startDailySimulator({ storage: StorageConfig.parse({ STORAGE_LOCAL_ROOT: storageRoot }) });
  // E-mail and team chat configured, so their rows show who may share, not "not configured".
  const smtp = await startSmtpCapture();
  const zulip = await startZulipSimulator();
  const sys = await startSystem({
    label: `perm${deployment.replace(/\W/g, "")}`,
    auth,
    env: {
      PUBLIC_MODE: String(publicMode),
      ADMIN_EMAIL: auth === "password" ? ADMIN.email : "",
      // Few iterations: the table logs in often; the real count is the password tests' business.
      ADMIN_PASSWORD_HASH: auth === "password" ? await hashPassword(ADMIN.password, { iterations: 1000 }) : "",
      // Every login row logs in; the limit itself has its own test.
      LOGIN_RATE_LIMIT_ATTEMPTS: "100000",
      DAILY_API_URL: daily.url,
      DAILY_API_KEY: daily.apiKey,
      DAILY_WEBHOOK_SECRET: daily.webhookSecret,
      STORAGE_LOCAL_ROOT: storageRoot,
      MEETING_PROCESS_INTERVAL_SECONDS: "0",
      // The private room's ICS feed is served on loopback; the calendar jobs stay off.
      ...CALENDAR_TEST_ENV,
      ...smtp.env,
      ZULIP_REALM: zulip.realm,
      ZULIP_BOT_EMAIL: zulip.botEmail,
      ZULIP_API_KEY: zulip.apiKey,
    },
  });
  daily.setWebhookUrl(`${sys.baseUrl}/v1/daily/webhook`);
  const stopSys = sys.stop;
  sys.stop = async () => {
    await stopSys();
    await daily.close();
    await smtp.close();
    await zulip.close();
    await rm(storageRoot, { recursive: true, force: true });
  };
  const bus = await connectBus({ url: TEST_NATS_URL, prefix: sys.prefix, name: `perm-${deployment}` });
  const ids = { owner: await sys.userId("owner"), other: await sys.userId("other") };
  // Keys exist only where users do; elsewhere the "key" callers send keys nobody issued.
  const keys =
    auth === "none"
      ? { owner: "no-such-key-owner", other: "no-such-key-other" }
      : { owner: (await sys.createApiKey("owner")).key, other: (await sys.createApiKey("other")).key };
  let n = 0;
  const base = {
    deployment,
    sys,
    daily,
    storage: StorageConfig.parse({ STORAGE_LOCAL_ROOT: storageRoot }),
    bus,
    ids,
    clients: {
      anon: sys.as(null),
      owner: sys.as("owner"),
      other: sys.as("other"),
      ownerKey: sys.withHeaders({ "x-api-key": keys.owner }),
      otherKey: sys.withHeaders({ "x-api-key": keys.other }),
    },
    callerOf: (user: "owner" | "other" | null): Caller => (user === null ? ANONYMOUS : { userId: ids[user], email: null, via: "internal" }),
    unique: (prefix: string) => `${prefix}-${++n}`,
  };
  return { ...base, fixtures: await seed(base) };
}

export async function stopWorld(w: World): Promise<void> {
  await w.bus.close();
  await w.sys.stop();
}

export { rpcCall };
