// Request/reply operations: subject, request schema and response schema, shared by caller and server.
import { z } from "@hono/zod-openapi";
import { Caller } from "./schemas";

export interface RpcOp<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  /** Unprefixed subject, always under `rpc.` so no stream captures it. */
  subject: string;
  request: Req;
  response: Res;
}
export function defineOp<Req extends z.ZodType, Res extends z.ZodType>(subject: string, request: Req, response: Res): RpcOp<Req, Res> {
  return { subject: `rpc.${subject}`, request, response };
}
export type RpcRequest<O extends RpcOp> = z.input<O["request"]>;
export type RpcResponse<O extends RpcOp> = z.infer<O["response"]>;

/** A request schema: `caller` plus the operation's fields (every request carries the caller). */
export const withCaller = <T extends z.ZodRawShape>(shape: T) => z.object({ caller: Caller, ...shape });
