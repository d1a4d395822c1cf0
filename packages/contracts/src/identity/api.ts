// Identity API schemas (api.md §1.9, component names verbatim): the caller, API keys, login.
import { z } from "@hono/zod-openapi";

/**
 * `sub` is the local user id (never the identity provider's uid). `email_verified` is always a
 * boolean: true only when the identity provider said so in the user's latest token; password-mode
 * users, API-key callers without a user row and tokens without the claim answer false.
 */
export const UserInfo = z.object({ sub: z.string(), email: z.string().nullable(), email_verified: z.boolean() }).openapi("UserInfo");
export type UserInfo = z.infer<typeof UserInfo>;

const apiKeyShape = {
  id: z.string(),
  user_id: z.string(),
  name: z.string().nullable(),
  created_at: z.iso.datetime({ offset: true }),
};
export const ApiKeyResponse = z.object(apiKeyShape).openapi("ApiKeyResponse");
export type ApiKeyResponse = z.infer<typeof ApiKeyResponse>;

/** Names are labels for the owner; 255 characters is Scribe's limit (the reference sets none). */
export const CreateApiKeyRequest = z
  .object({ name: z.string().min(1).max(255).nullable().optional().default(null) })
  .openapi("CreateApiKeyRequest");
export type CreateApiKeyRequest = z.infer<typeof CreateApiKeyRequest>;

/** The only response that carries the key itself: it is shown once, at creation. */
export const CreateApiKeyResponse = z.object({ ...apiKeyShape, key: z.string() }).openapi("CreateApiKeyResponse");
export type CreateApiKeyResponse = z.infer<typeof CreateApiKeyResponse>;

export const LoginRequest = z.object({ email: z.string(), password: z.string() }).openapi("LoginRequest");
export type LoginRequest = z.infer<typeof LoginRequest>;

export const LoginResponse = z
  .object({ access_token: z.string(), token_type: z.string().default("bearer"), expires_in: z.number().int() })
  .openapi("LoginResponse");
export type LoginResponse = z.infer<typeof LoginResponse>;
