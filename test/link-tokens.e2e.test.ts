// The gateway's token helpers that the WebSocket and media routes use: verifyToken for bare bearer
// tokens (Sec-WebSocket-Protocol) and verifyLinkToken / mintMediaToken for audio `?token=` links
// (behaviour §6.9, §6.10), in each auth mode.
import { isAppError, mintMediaToken, type ErrorKind } from "@scribe/kit";
import type { Authenticator } from "@scribe/gateway";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_SECRET, startSystem, type AuthMode, type TestSystem } from "./support/system";

async function refusal(p: Promise<unknown>): Promise<{ kind: ErrorKind; detail: unknown }> {
  try {
    await p;
  } catch (e) {
    if (isAppError(e)) return { kind: e.kind, detail: e.detail };
    throw e;
  }
  throw new Error("expected a refusal");
}

for (const mode of ["password", "jwt", "none"] as AuthMode[]) {
  describe(`token helpers with AUTH_BACKEND=${mode}`, () => {
    let sys: TestSystem;
    let auth: Authenticator;
    beforeAll(async () => {
      sys = await startSystem({ label: `link${mode}`, auth: mode, services: ["gateway"] });
      auth = sys.process.services.find((s) => s.name === "gateway")!.exports.auth as Authenticator;
    });
    afterAll(async () => sys.stop());

    it("verifyToken: a bearer token of the backend is its user; anything else a 401 (none: anonymous)", async () => {
      const caller = await auth.verifyToken(await sys.token("wendy"));
      if (mode === "none") {
        expect(caller.userId).toBeNull();
        expect((await auth.verifyToken("garbage")).userId).toBeNull();
        return;
      }
      expect(caller).toEqual({ userId: await sys.userId("wendy"), email: "wendy@example.com", via: "bearer" });
      expect(await refusal(auth.verifyToken("garbage"))).toEqual({ kind: "unauthorized", detail: "Invalid authentication" });
      // API keys are for HTTP headers only.
      const { key } = await sys.createApiKey("wendy");
      expect(await refusal(auth.verifyToken(key))).toEqual({ kind: "unauthorized", detail: "Invalid authentication" });
    });

    it("verifyLinkToken: a minted media token is its user for 15 minutes, for its transcript's audio only, in every mode", async () => {
      const token = await auth.mintMediaToken({ userId: "owner-7", transcriptId: "t-7" });
      expect(await auth.verifyLinkToken(token, "t-7")).toEqual({ userId: "owner-7", email: null, via: "bearer" });
      const invalid = { kind: "unauthorized", detail: "Invalid or expired token" };
      expect(await refusal(auth.verifyLinkToken(token, "t-8"))).toEqual(invalid);
      expect(await refusal(auth.verifyLinkToken(token, null))).toEqual(invalid);
      const expired = await mintMediaToken(
        TEST_SECRET,
        { userId: "owner-7", transcriptId: "t-7" },
        { now: new Date(Date.now() - 16 * 60_000) },
      );
      expect(await refusal(auth.verifyLinkToken(expired, "t-7"))).toEqual(invalid);
      expect(await refusal(auth.verifyLinkToken("garbage", "t-7"))).toEqual(invalid);
      const foreign = await mintMediaToken("another-secret-0123456789", { userId: "owner-7", transcriptId: "t-7" }, { now: new Date() });
      expect(await refusal(auth.verifyLinkToken(foreign, "t-7"))).toEqual(invalid);
    });

    it("verifyLinkToken: a bearer token of the backend works on links too (reference)", async () => {
      const token = await sys.token("xavier");
      if (mode === "none") expect(await refusal(auth.verifyLinkToken(token, "t-1"))).toMatchObject({ kind: "unauthorized" });
      else expect((await auth.verifyLinkToken(token, null)).userId).toBe(await sys.userId("xavier"));
    });

    it("a media token is no bearer token for the API", async () => {
      const media = await auth.mintMediaToken({ userId: await sys.userId("yuri"), transcriptId: "t-1" });
      const { data, response } = await sys.clientWith({ token: media }).GET("/v1/me");
      if (mode === "none") expect(data).toBeNull();
      else expect(response.status).toBe(401);
    });
  });
}
