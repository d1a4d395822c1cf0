// SECRET_KEY signs login tokens and audio links (issue 15.5): the gateway refuses to start with a
// published placeholder or a short key, in every auth mode; `scribe dev` still starts without one.
import { startDevStack } from "@scribe/cli";
import { createScribeClient } from "@scribe/client";
import { describe, expect, it } from "vitest";
import { isolated } from "./support/dev-stack";
import { startSystem } from "./support/system";

const PLACEHOLDERS = {
  "the built-in default (unset)": "",
  "the chart's old example": "change-me-in-production",
  "compose's old example": "change-me-compose-secret-key",
  "a short key": "k3y-0f-20-characters",
};

describe.each(["none", "password"] as const)("gateway start-up with AUTH_BACKEND=%s", (auth) => {
  it.each(Object.entries(PLACEHOLDERS))("is refused with %s, with one message naming SECRET_KEY", async (_label, key) => {
    const started = startSystem({ label: "secretkey", services: ["gateway"], auth, env: { SECRET_KEY: key } });
    await expect(started).rejects.toThrow(
      /SECRET_KEY: (is a published placeholder|shorter than 32 characters).*; set SECRET_KEY to a random value/,
    );
  });
});

describe("scribe dev", () => {
  it("starts without a SECRET_KEY (it makes its own) and lets the dev admin sign in", async () => {
    const iso = await isolated("secretdev");
    const stack = await startDevStack(iso.env, ["gateway"]);
    try {
      const login = await createScribeClient({ baseUrl: stack.apiUrl }).POST("/v1/auth/login", {
        body: { email: stack.admin!.email, password: stack.admin!.password },
      });
      expect(login.response.status).toBe(200);
      expect(stack.env.SECRET_KEY).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await stack.stop();
      await iso.drop();
    }
  });
});
