import { defineOp, Caller } from "@scribe/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { RpcServer, rpcCall } from "../src/bus/rpc";
import { AppError, NotFound } from "../src/errors";
import { kitEnv, log, type KitEnv } from "./helpers";

let env: KitEnv;
let server: RpcServer;
const echo = defineOp(
  "test.echo",
  z.object({ caller: Caller, text: z.string().min(1) }),
  z.object({ text: z.string(), user: z.string().nullable() }),
);
const missing = defineOp("test.missing", z.object({}), z.object({}));
const slow = defineOp("test.slow", z.object({ ms: z.number() }), z.object({ done: z.boolean() }));
const broken = defineOp("test.broken", z.object({}), z.object({}));
const nobody = defineOp("test.nobody", z.object({}), z.object({}));

beforeAll(async () => {
  env = await kitEnv("rpc");
  server = new RpcServer(env.bus, log, "test");
  server.handle(echo, async (req) => ({ text: req.text.toUpperCase(), user: req.caller.userId }));
  server.handle(missing, async () => {
    throw NotFound("Room not found");
  });
  server.handle(slow, async (req) => {
    await new Promise((r) => setTimeout(r, req.ms));
    return { done: true };
  });
  server.handle(broken, async () => {
    throw new Error("bug: secret internals");
  });
});
afterAll(async () => {
  await server.stop();
  await env.close();
});

describe("request/reply", () => {
  it("answers a typed request with the typed response", async () => {
    const res = await rpcCall(env.bus, echo, { caller: { userId: "u1", email: null, via: "bearer" }, text: "hi" });
    expect(res).toEqual({ text: "HI", user: "u1" });
  });

  it("carries a service's typed error to the caller with its kind and detail", async () => {
    const err = await rpcCall(env.bus, missing, {}).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ kind: "not_found", detail: "Room not found" });
  });

  it("rejects an invalid request as invalid, naming the field", async () => {
    const err = await rpcCall(env.bus, echo, { caller: { userId: null }, text: "" } as never).catch((e) => e);
    expect(err).toMatchObject({ kind: "invalid" });
    expect(err.detail[0].loc).toEqual(["body", "text"]);
  });

  it("hides unexpected errors behind an internal error without leaking their message", async () => {
    const err = await rpcCall(env.bus, broken, {}).catch((e) => e);
    expect(err).toMatchObject({ kind: "internal", detail: "Internal Server Error" });
  });

  it("reports unavailable when no service instance is listening", async () => {
    const err = await rpcCall(env.bus, nobody, {}).catch((e) => e);
    expect(err).toMatchObject({ kind: "unavailable", detail: "The test service is unavailable" });
  });

  it("gives up at the deadline with a timeout", async () => {
    const err = await rpcCall(env.bus, slow, { ms: 2000 }, { timeoutMs: 200 }).catch((e) => e);
    expect(err).toMatchObject({ kind: "timeout" });
  });

  it("lets in-flight requests finish when the server stops", async () => {
    const second = new RpcServer(env.bus, log, "test2");
    const op = defineOp("test.drain", z.object({}), z.object({ done: z.boolean() }));
    let arrived!: () => void;
    const inHandler = new Promise<void>((r) => (arrived = r));
    second.handle(op, async () => {
      arrived();
      await new Promise((r) => setTimeout(r, 300));
      return { done: true };
    });
    await env.bus.nc.flush();
    const pending = rpcCall(env.bus, op, {});
    await inHandler;
    await second.stop();
    await expect(pending).resolves.toEqual({ done: true });
  });
});
