// OpenAPI response declarations reused by every route.
import { HTTPValidationError } from "@scribe/contracts";
import type { z } from "@hono/zod-openapi";

export function json<T extends z.ZodType>(schema: T, description = "Successful Response") {
  return { content: { "application/json": { schema } }, description };
}
export const validationError = { 422: json(HTTPValidationError, "Validation Error") };
export function body<T extends z.ZodType>(schema: T) {
  return { body: { content: { "application/json": { schema } }, required: true } };
}
