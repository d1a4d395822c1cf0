// Schemas shared by every API area: errors, pagination, deletion status, caller identity.
import { z } from "@hono/zod-openapi";

export const ValidationError = z
  .object({
    loc: z.array(z.union([z.string(), z.number().int()])),
    msg: z.string(),
    type: z.string(),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("ValidationError");
export type ValidationError = z.infer<typeof ValidationError>;

export const HTTPValidationError = z.object({ detail: z.array(ValidationError).optional() }).openapi("HTTPValidationError");

/** Every handler error body: {"detail": "<message>"}. */
export const ErrorDetail = z.object({ detail: z.string() });

export const DeletionStatus = z.object({ status: z.string() }).openapi("DeletionStatus");

export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  size: z.coerce.number().int().min(1).max(100).default(50),
});
export type PageQuery = z.infer<typeof PageQuery>;

export function pageOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      total: z.number().int(),
      page: z.number().int(),
      size: z.number().int(),
      pages: z.number().int(),
    })
    .openapi(name);
}
export function pageCount(total: number, size: number): number {
  return total === 0 ? 0 : Math.ceil(total / size);
}

/**
 * Who is calling, as resolved by the gateway and passed to services on every request.
 * Services decide permissions from this; the gateway never decides ownership itself.
 */
export const Caller = z.object({
  userId: z.string().nullable(),
  email: z.string().nullable().default(null),
  via: z.enum(["anonymous", "bearer", "api_key", "internal"]).default("anonymous"),
});
export type Caller = z.infer<typeof Caller>;
export const ANONYMOUS: Caller = { userId: null, email: null, via: "anonymous" };
