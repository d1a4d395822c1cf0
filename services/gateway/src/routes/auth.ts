// POST /v1/auth/login (api.md §2.2): exists only with AUTH_BACKEND=password. Rate-limited per client
// address before anything else is looked at; the same answer, in about the same time, for an unknown
// e-mail and a wrong password.
import { OpenAPIHono, createRoute } from "@hono/zod-openapi";
import { LoginRequest, LoginResponse } from "@scribe/contracts";
import { TooManyRequests, Unauthorized } from "@scribe/kit";
import { rateLimitKey, requestClientAddress, trustedProxies } from "../auth/client-address";
import { UNMATCHABLE_HASH, verifyPassword } from "../auth/password-hash";
import { LoginAttemptLimiter } from "../auth/rate-limit";
import { signPasswordToken } from "../auth/tokens";
import type { AppEnv, GatewayDeps } from "../http/context";
import { loginUserByEmail } from "../store";
import { body, json, validationError } from "./responses";

/** The TCP peer (absent when the app is called without a socket, e.g. app.fetch in a test). */
export function authRoutes(app: OpenAPIHono<AppEnv>, { config, sql, clock }: GatewayDeps): void {
  if (config.AUTH_BACKEND !== "password") return;
  const limiter = new LoginAttemptLimiter(sql, config.LOGIN_RATE_LIMIT_ATTEMPTS, config.LOGIN_RATE_LIMIT_WINDOW_SECONDS * 1000);
  const trusted = trustedProxies(config.TRUSTED_PROXIES);

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/auth/login",
      operationId: "v1_login",
      tags: ["auth"],
      request: body(LoginRequest),
      responses: { 200: json(LoginResponse), ...validationError },
    }),
    async (c) => {
      const { email, password } = c.req.valid("json");
      const address = requestClientAddress(c, trusted);
      const now = clock();
      if (!(await limiter.attempt(rateLimitKey(address), now))) {
        c.get("log").warn({ address }, "login rate limit reached");
        throw TooManyRequests("Too many login attempts. Try again later.");
      }
      const user = await loginUserByEmail(sql, email);
      const matches = await verifyPassword(password, user?.password_hash ?? UNMATCHABLE_HASH);
      if (!user || !matches) {
        c.get("log").info({ address }, "login refused");
        throw Unauthorized("Invalid email or password");
      }
      const ttl = config.LOGIN_TOKEN_TTL_SECONDS;
      const token = await signPasswordToken(config.SECRET_KEY, { sub: user.id, email: user.email }, { now, ttlSeconds: ttl });
      return c.json({ access_token: token, token_type: "bearer", expires_in: ttl }, 200);
    },
  );
}
