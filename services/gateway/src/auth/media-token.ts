// `?token=` on media links: browsers' <audio>/<video> elements cannot send an Authorization header,
// so the web app appends its access token, and pipelines use short-lived media tokens. Which tokens
// verify is the authenticator's business (verifyLinkToken); this turns the query parameter into the
// request's caller.
import type { MiddlewareHandler } from "hono";
import { isAppError } from "@scribe/kit";
import type { AppEnv } from "../http/context";

/**
 * An identity from the headers wins (the token is then ignored); otherwise a `token` query
 * parameter must verify: 401 "Invalid or expired token" with `WWW-Authenticate: Bearer`. Internal
 * media tokens open the audio of the one transcript they were minted for (`audio`); on other media
 * routes only the backend's own bearer tokens do.
 */
export const linkTokenIdentity =
  (opens: "audio" | "other"): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const token = c.req.query("token");
    if (c.get("caller").userId === null && token) {
      const audioOf = opens === "audio" ? (c.req.param("transcript_id") ?? null) : null;
      try {
        c.set("caller", await c.get("deps").auth.verifyLinkToken(token, audioOf));
      } catch (e) {
        if (!isAppError(e) || e.kind !== "unauthorized") throw e;
        return c.json({ detail: "Invalid or expired token" }, 401, { "WWW-Authenticate": "Bearer" });
      }
    }
    await next();
  };
