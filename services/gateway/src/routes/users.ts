// The caller and their API keys (api.md §2.3): GET /v1/me, and list / create / delete API keys.
// These live in the gateway because it owns users and keys; every key operation is the caller's own.
import { randomUUID } from "node:crypto";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { ApiKeyResponse, CreateApiKeyRequest, CreateApiKeyResponse, UserInfo } from "@scribe/contracts";
import { NotFound } from "@scribe/kit";
import { generateApiKey, hashApiKey } from "../auth/api-keys";
import { requireUser, type AppContext, type AppEnv } from "../http/context";
import { IdempotencyKeyHeaders, idempotent } from "../http/idempotency";
import { deleteApiKey, insertApiKey, listApiKeys, userById } from "../store";
import { body, json, validationError } from "./responses";

const tags = ["user"];

/** Routes behind requireUser: the caller has a user id. */
function userIdOf(c: AppContext): string {
  return c.get("caller").userId!;
}

export function userRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/me",
      operationId: "v1_user_me",
      tags,
      responses: { 200: json(z.union([UserInfo, z.null()])) },
    }),
    async (c) => {
      const caller = c.get("caller");
      if (caller.userId === null) return c.json(null, 200);
      const row = await userById(c.get("deps").sql, caller.userId);
      return c.json({ sub: caller.userId, email: row?.email ?? caller.email, email_verified: row?.email_verified ?? false }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/user/api-keys",
      operationId: "v1_list_api_keys",
      tags,
      middleware: [requireUser] as const,
      responses: { 200: json(z.array(ApiKeyResponse)) },
    }),
    async (c) => c.json(await listApiKeys(c.get("deps").sql, userIdOf(c)), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/user/api-keys",
      operationId: "v1_create_api_key",
      tags,
      middleware: [requireUser, idempotent] as const,
      request: { ...body(CreateApiKeyRequest), headers: IdempotencyKeyHeaders },
      responses: { 200: json(CreateApiKeyResponse), ...validationError },
    }),
    async (c) => {
      const { sql, config, clock } = c.get("deps");
      const key = generateApiKey();
      const stored = await insertApiKey(sql, {
        id: randomUUID(),
        userId: userIdOf(c),
        keyHash: hashApiKey(config.SECRET_KEY, key),
        name: c.req.valid("json").name,
        now: clock(),
      });
      return c.json({ ...stored, key }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/user/api-keys/{key_id}",
      operationId: "v1_delete_api_key",
      tags,
      middleware: [requireUser] as const,
      request: { params: z.object({ key_id: z.string() }) },
      responses: { 200: json(z.object({ status: z.string() })), ...validationError },
    }),
    async (c) => {
      // Another user's key id deletes nothing and answers like an unknown id: no hint that it exists.
      const deleted = await deleteApiKey(c.get("deps").sql, userIdOf(c), c.req.valid("param").key_id);
      if (!deleted) throw NotFound("Not Found");
      return c.json({ status: "ok" }, 200);
    },
  );
}
