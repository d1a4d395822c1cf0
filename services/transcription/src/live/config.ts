// Settings of live recording (WebRTC ingest, behaviour §10). ICE works on localhost without any;
// a real deployment sets a public address (1:1 NAT, e.g. a node's external IP with the UDP range
// forwarded) and/or STUN/TURN servers, and a UDP port range its firewall or Service opens.
import { envBool } from "@scribe/kit";
import { z } from "zod";

export const LiveConfig = z.object({
  LIVE_ICE_SERVERS: z
    .string()
    .default("")
    .describe(
      "comma-separated STUN/TURN URLs offered to the server's ICE agent (e.g. `stun:stun.example.org:3478,turn:turn.example.org:3478`); empty: host candidates only",
    ),
  LIVE_TURN_USERNAME: z.string().default("").describe("username for the `turn:` URLs of LIVE_ICE_SERVERS"),
  LIVE_TURN_PASSWORD: z.string().default("").describe("credential for the `turn:` URLs of LIVE_ICE_SERVERS (never logged)"),
  LIVE_ICE_RELAY_ONLY: envBool(false).describe("`true`: use TURN relays only (when nothing but the TURN server is reachable)"),
  LIVE_PUBLIC_ADDRESS: z
    .union([z.ipv4(), z.literal("")])
    .default("")
    .describe("IPv4 address peers reach this service at when it is behind a 1:1 NAT (announced with the local ports); empty: none"),
  LIVE_UDP_PORT_MIN: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(0)
    .describe("lowest UDP port of the WebRTC media sockets (0 with LIVE_UDP_PORT_MAX 0: any port)"),
  LIVE_UDP_PORT_MAX: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(0)
    .describe("highest UDP port of the WebRTC media sockets; the range must hold two ports per live session"),
  LIVE_IDLE_TIMEOUT_SECONDS: z.coerce
    .number()
    .min(1)
    .default(60)
    .describe("a live session that receives no audio for this long ends (and is processed)"),
  LIVE_SEGMENT_SECONDS: z.coerce
    .number()
    .min(1)
    .max(60)
    .default(5)
    .describe("received audio is written to storage every this many seconds (at most this much is lost if the service dies)"),
  LIVE_SESSION_LEASE_SECONDS: z.coerce
    .number()
    .min(5)
    .default(30)
    .describe("a live session not renewed by its process for this long is finished by another from its stored audio"),
  LIVE_RECOVERY_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(10_000)
    .describe("how often abandoned live sessions are looked for (0: never, tests drive it)"),
  LIVE_MAX_SESSIONS: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .describe("live sessions one transcription process accepts at once (more: 503)"),
});
export type LiveConfig = z.infer<typeof LiveConfig>;

/** The ICE servers werift is given: TURN URLs with the configured credentials. */
export function iceServersOf(c: LiveConfig): { urls: string; username?: string; credential?: string }[] {
  return c.LIVE_ICE_SERVERS.split(",")
    .map((u) => u.trim())
    .filter(Boolean)
    .map((urls) => (/^turns?:/i.test(urls) ? { urls, username: c.LIVE_TURN_USERNAME, credential: c.LIVE_TURN_PASSWORD } : { urls }));
}

/** Both ends or neither (checked at start-up): werift refuses a range with equal ends. */
export function portRangeOf(c: LiveConfig): [number, number] | undefined {
  if (c.LIVE_UDP_PORT_MIN === 0 && c.LIVE_UDP_PORT_MAX === 0) return undefined;
  if (c.LIVE_UDP_PORT_MAX <= c.LIVE_UDP_PORT_MIN) {
    throw new Error(`LIVE_UDP_PORT_MAX (${c.LIVE_UDP_PORT_MAX}) must be above LIVE_UDP_PORT_MIN (${c.LIVE_UDP_PORT_MIN}), or both 0`);
  }
  return [c.LIVE_UDP_PORT_MIN, c.LIVE_UDP_PORT_MAX];
}
