// Idempotency-Key on creates: a client whose connection dropped sends the create again with the same
// key and gets the first answer (same status and body, `Idempotent-Replayed: true`) instead of a
// duplicate. Keys are per user, kept in PostgreSQL so every gateway replica sees them, and claimed
// before the create runs, so duplicates sent at once wait for the one create's answer.
import { createHash, randomUUID } from "node:crypto";
import { z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { AppError, Invalid, secretBox, type SecretBox } from "@scribe/kit";
import { claimIdempotencyKey, idempotentAnswer, recordIdempotentAnswer, releaseIdempotencyKey, type IdempotentAnswer } from "../store";
import type { AppEnv } from "./context";

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const REPLAYED_HEADER = "Idempotent-Replayed";
/** Answer headers a replay repeats: the body's type and the versions the create wrote (read-your-writes). */
const KEPT_HEADERS = ["content-type", "scribe-versions"];
/** A claim without an answer this old belongs to a request that will never answer (its gateway died). */
const ABANDONED_AFTER_MS = 5 * 60_000;
/** How long a duplicate waits for the first request's answer before it is told to try again. */
const WAIT_FOR_FIRST_MS = 30_000;
const POLL_MS = 50;

const KEY_SYNTAX = /^[\x21-\x7e]{1,255}$/;

/** The header parameter of the operations that take it (OpenAPI, and so the typed client). */
export const IdempotencyKeyHeaders = z.object({
  [IDEMPOTENCY_KEY_HEADER]: z
    .string()
    .regex(KEY_SYNTAX)
    .optional()
    .openapi({
      description:
        "Any unique value (e.g. a UUID) of 1–255 visible ASCII characters. The same key and body sent again by the same user " +
        "within IDEMPOTENCY_RETENTION_HOURS (24 h) answer the first request's status and body with `Idempotent-Replayed: true` " +
        "and create nothing; the same key with another body is a 422. Ignored for anonymous callers.",
      example: "0f8fad5b-d9cb-469f-a165-70867728950e",
    }),
});

const boxes = new WeakMap<object, SecretBox>();
function boxOf(config: { SECRET_KEY: string }): SecretBox {
  let box = boxes.get(config);
  if (!box) boxes.set(config, (box = secretBox(config.SECRET_KEY, "gateway.idempotent_answer")));
  return box;
}

const invalidKey = (msg: string) => Invalid([{ loc: ["header", IDEMPOTENCY_KEY_HEADER], msg, type: "value_error" }]);

/** Route middleware of a create: replays the answer of a key already used, records the answer of a new one. */
export const idempotent: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
  const userId = c.get("caller").userId;
  // Anonymous callers share no identity a key could be bound to: another client's answer must not leak.
  if (key === undefined || userId === null) return next();
  if (!KEY_SYNTAX.test(key)) throw invalidKey("Idempotency-Key must be 1 to 255 visible ASCII characters");
  const { sql, config, clock } = c.get("deps");
  const body = Buffer.from(await c.req.arrayBuffer());
  const fingerprint = createHash("sha256").update(`${c.req.method} ${c.req.path}\n`).update(body).digest("hex");
  const box = boxOf(config);

  const deadline = performance.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const now = clock();
    const claim = randomUUID();
    const claimed = await claimIdempotencyKey(sql, {
      userId,
      key,
      fingerprint,
      claim,
      now,
      expiresAt: new Date(now.getTime() + config.IDEMPOTENCY_RETENTION_HOURS * 3_600_000),
      staleBefore: new Date(now.getTime() - ABANDONED_AFTER_MS),
    });
    if (claimed) return answerAndRecord(claim);
    const earlier = await idempotentAnswer(sql, userId, key);
    if (earlier === null) continue; // released or expired meanwhile: claim it again
    if (earlier.fingerprint !== fingerprint)
      throw invalidKey("Idempotency-Key was already used with another request (method, path or body); use a new key");
    if (earlier.status !== null) return replay(earlier);
    if (performance.now() > deadline)
      throw new AppError("conflict", "A request with this Idempotency-Key is still being processed; try again", { retryAfterSeconds: 1 });
    await new Promise((r) => setTimeout(r, POLL_MS));
  }

  async function answerAndRecord(claim: string): Promise<void> {
    const k = { userId: userId!, key: key!, claim };
    try {
      await next();
    } catch (e) {
      await releaseIdempotencyKey(sql, k).catch(() => {});
      throw e;
    }
    const res = c.res;
    // A server-side failure is not an answer to keep: the client's retry runs the create again.
    if (res.status >= 500) return releaseIdempotencyKey(sql, k);
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = res.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    const text = await res.clone().text();
    await recordIdempotentAnswer(sql, k, { status: res.status, headers, body: box.seal(text) });
  }

  function replay(earlier: IdempotentAnswer): Response {
    const headers = new Headers(earlier.headers ?? {});
    headers.set(REPLAYED_HEADER, "true");
    c.res = new Response(box.open(earlier.body ?? ""), { status: earlier.status!, headers });
    return c.res;
  }
};
