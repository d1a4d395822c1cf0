// The Zulip REST API as Scribe uses it (behaviour-search-notify-auth §5.2): streams, topics, post
// and update a stream message. HTTP Basic auth with the bot's e-mail and key, form-encoded bodies,
// answers parsed with zod, a deadline on every call. The realm is the operator's, not a user's URL,
// so the client has no SSRF guard; failed posts are retried by the notifier's delivery schedule.
import type { Stream, Topic } from "@scribe/contracts";
import { createHttpClient, HttpError } from "@scribe/kit";
import { z } from "zod";

export interface ZulipSettings {
  ZULIP_REALM: string;
  ZULIP_API_KEY: string;
  ZULIP_BOT_EMAIL: string;
  ZULIP_TIMEOUT_MS: number;
}

/** Team chat is enabled when a realm is set (reference). */
export const zulipConfigured = (s: Pick<ZulipSettings, "ZULIP_REALM">): boolean => s.ZULIP_REALM !== "";

export class ZulipError extends Error {
  constructor(
    message: string,
    /** HTTP status of Zulip's answer; null when none came. */
    readonly status: number | null,
    /** Zulip's "Invalid message(s)": the message to update no longer exists. */
    readonly invalidMessage = false,
  ) {
    super(message);
    this.name = "ZulipError";
  }
}

const Result = z.object({ result: z.string().optional(), msg: z.string().optional() }).loose();
const Streams = z.object({ streams: z.array(z.object({ stream_id: z.number().int(), name: z.string() }).loose()).default([]) });
const Topics = z.object({ topics: z.array(z.object({ name: z.string() }).loose()).default([]) });
const Posted = z.object({ id: z.number().int() });

/** `https://<realm>`; a realm given as a full URL is used as is (a local server in tests and demos). */
export function zulipBaseUrl(realm: string): string {
  return (/^https?:\/\//.test(realm) ? realm : `https://${realm}`).replace(/\/+$/, "");
}

const http = createHttpClient({ guard: false });

export class ZulipClient {
  constructor(private readonly s: ZulipSettings) {}

  private async call(op: string, method: "GET" | "POST" | "PATCH", path: string, form?: Record<string, string>): Promise<unknown> {
    const auth = Buffer.from(`${this.s.ZULIP_BOT_EMAIL}:${this.s.ZULIP_API_KEY}`).toString("base64");
    let status: number;
    let text: string;
    try {
      const res = await http.request(`${zulipBaseUrl(this.s.ZULIP_REALM)}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Basic ${auth}`,
          ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
        timeoutMs: this.s.ZULIP_TIMEOUT_MS,
      });
      status = res.status;
      text = res.body.toString("utf8");
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      const reason = e.code === "timeout" ? `timed out after ${this.s.ZULIP_TIMEOUT_MS} ms` : e.message;
      throw new ZulipError(`Failed to ${op}: ${reason}`, null);
    }
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: reported below by status
    }
    if (status < 200 || status >= 300) {
      const msg = Result.safeParse(json).data?.msg;
      throw new ZulipError(
        `Failed to ${op}: Zulip answered ${status}${msg ? `: ${msg}` : ""}`,
        status,
        status === 400 && msg === "Invalid message(s)",
      );
    }
    return json;
  }

  async streams(): Promise<Stream[]> {
    const r = Streams.safeParse(await this.call("get streams", "GET", "/streams"));
    if (!r.success) throw new ZulipError("Failed to get streams: unexpected answer", null);
    return r.data.streams.map((s) => ({ stream_id: s.stream_id, name: s.name }));
  }

  async topics(streamId: number): Promise<Topic[]> {
    const r = Topics.safeParse(await this.call("get topics", "GET", `/users/me/${streamId}/topics`));
    if (!r.success) throw new ZulipError("Failed to get topics: unexpected answer", null);
    return r.data.topics.map((t) => ({ name: t.name }));
  }

  /** Posts to a stream; answers the new message's id. */
  async post(stream: string, topic: string, content: string): Promise<number> {
    const r = Posted.safeParse(
      await this.call("send message to Zulip", "POST", "/messages", { type: "stream", to: stream, topic, content }),
    );
    if (!r.success) throw new ZulipError("Failed to send message to Zulip: the answer has no message id", null);
    return r.data.id;
  }

  /** Edits a message's topic and content (its stream stays). */
  async update(messageId: number, topic: string, content: string): Promise<void> {
    await this.call("update Zulip message", "PATCH", `/messages/${messageId}`, { topic, content });
  }
}
