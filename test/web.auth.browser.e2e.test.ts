// Signing in to the web app in each auth mode, in a real browser. AUTH_BACKEND=jwt with an identity
// provider (the simulator): "Sign in with …" → the provider's login → back signed in, through
// OAuth 2.0 authorization code + PKCE; an answer with another tab's state, or a verifier that does
// not match the challenge, is refused. The simulator's own checks (PKCE S256, redirect_uri, single
// use codes) are tested directly too. AUTH_BACKEND=none: no sign-in anywhere, the pages just work.
import { join } from "node:path";
import { ok } from "@scribe/client";
import { pkceChallenge, startIdp, type IdpSimulator } from "@scribe/simulators";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebApp, launchChromium, SCREENSHOTS, watchedPage } from "./support/browser";
import { startSystem, type TestSystem } from "./support/system";
import { signInWithProvider, storedToken } from "./support/web-sign-in";

let browser: Browser;

beforeAll(async () => {
  buildWebApp();
  browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
});

describe("AUTH_BACKEND=jwt with an identity provider", () => {
  let idp: IdpSimulator;
  let sys: TestSystem;

  beforeAll(async () => {
    idp = await startIdp();
    sys = await startSystem({
      label: "webauthjwt",
      services: ["rooms", "projection", "search", "gateway"],
      auth: "jwt",
      idp,
      env: { OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: idp.clientId, OIDC_PROVIDER_NAME: "Example SSO" },
    });
  }, 120_000);
  afterAll(async () => {
    await sys?.stop();
    await idp?.close();
  });

  it("tells the app the auth mode and the provider's endpoints from its discovery document", async () => {
    expect(await ok(sys.client(null).GET("/app-config.json"))).toEqual({
      auth_backend: "jwt",
      oidc: {
        provider_name: "Example SSO",
        client_id: idp.clientId,
        scope: "openid email profile",
        issuer: idp.issuer,
        authorization_endpoint: `${idp.url}/authorize`,
        token_endpoint: `${idp.url}/token`,
      },
      upload: { max_chunk_bytes: 64 * 1024 ** 2, max_chunks: 10_000 },
    });
  });

  it("the simulator's token endpoint checks the PKCE verifier, the redirect_uri and uses each code once", async () => {
    const verifier = "v".repeat(20) + "-._~0123456789abcdefghijklmnop";
    const redirectUri = `${sys.baseUrl}/auth/callback`;
    // Raw: the identity provider simulator's OAuth endpoints, not Scribe's API.
    const authorize = async () => {
      const res = await fetch(`${idp.url}/authorize`, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({
          response_type: "code",
          client_id: idp.clientId,
          redirect_uri: redirectUri,
          state: "s1",
          code_challenge: pkceChallenge(verifier),
          code_challenge_method: "S256",
          login: "bob@example.com",
        }),
      });
      expect(res.status).toBe(302);
      const back = new URL(res.headers.get("location")!);
      expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
      expect(back.searchParams.get("state")).toBe("s1");
      return back.searchParams.get("code")!;
    };
    const exchange = (fields: Record<string, string>) =>
      fetch(`${idp.url}/token`, {
        method: "POST",
        body: new URLSearchParams({ grant_type: "authorization_code", client_id: idp.clientId, redirect_uri: redirectUri, ...fields }),
      });

    const tampered = await exchange({ code: await authorize(), code_verifier: `${verifier.slice(0, -1)}q` });
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toMatchObject({ error: "invalid_grant", error_description: expect.stringContaining("code_verifier") });

    const elsewhere = await exchange({ code: await authorize(), code_verifier: verifier, redirect_uri: "https://evil.example/cb" });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.json()).toMatchObject({ error: "invalid_grant", error_description: expect.stringContaining("redirect_uri") });

    const plainQuery = new URLSearchParams({
      response_type: "code",
      client_id: idp.clientId,
      redirect_uri: redirectUri,
      code_challenge: verifier,
      code_challenge_method: "plain",
    });
    const plain = await fetch(`${idp.url}/authorize?${plainQuery.toString()}`);
    expect(plain.status).toBe(400);

    const code = await authorize();
    const good = await exchange({ code, code_verifier: verifier });
    expect(good.status).toBe(200);
    const tokens = (await good.json()) as { access_token: string; id_token: string; token_type: string };
    expect(tokens.token_type).toBe("Bearer");
    // The gateway takes the access token as the signed-in user.
    expect(await ok(sys.clientWith({ token: tokens.access_token }).GET("/v1/me"))).toMatchObject({ email: "bob@example.com" });

    const again = await exchange({ code, code_verifier: verifier });
    expect(again.status).toBe(400);
  });

  it("signs in through the provider and back, and signs out", async () => {
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${sys.baseUrl}/signin`);
    await page.getByRole("button", { name: "Sign in with Example SSO" }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, "sign-in-provider.png"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SCREENSHOTS, "sign-in-provider-mobile.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    await signInWithProvider(page, sys.baseUrl, "carol@example.com");
    const token = await storedToken(page);
    expect(await ok(sys.clientWith({ token: token! }).GET("/v1/me"))).toMatchObject({ email: "carol@example.com" });
    // The verifier and state were for that one round trip.
    expect(await page.evaluate(() => (globalThis as unknown as { sessionStorage: { length: number } }).sessionStorage.length)).toBe(0);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${sys.baseUrl}/signin`);
    expect(await storedToken(page)).toBeNull();
    expect(problems).toEqual([]);
    await page.close();
  });

  it("refuses an answer whose state this tab did not send", async () => {
    const { page } = await watchedPage(browser);
    await page.goto(`${sys.baseUrl}/signin`);
    await page.getByRole("button", { name: "Sign in with Example SSO" }).click();
    await page.getByLabel("E-mail").waitFor();
    // An attacker's link to the callback, with a code of theirs and a state of their choosing.
    await page.goto(`${sys.baseUrl}/auth/callback?code=stolen&state=forged`);
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("does not belong to a sign-in started here");
    await page.screenshot({ path: join(SCREENSHOTS, "sign-in-failed.png"), fullPage: true });
    expect(await storedToken(page)).toBeNull();
    await page.close();
  });

  it("refuses the sign-in when the verifier sent with the code is not the one the challenge was made from", async () => {
    const { page } = await watchedPage(browser);
    // Before the app's code runs on the callback, change one character of the stored verifier.
    await page.addInitScript(() => {
      const browserGlobals = globalThis as unknown as {
        sessionStorage: { getItem(k: string): string | null; setItem(k: string, v: string): void };
        location: { pathname: string };
      };
      const store = browserGlobals.sessionStorage;
      if (browserGlobals.location.pathname !== "/auth/callback") return;
      const pending = JSON.parse(store.getItem("scribe.oidc.pending") ?? "null") as { verifier: string } | null;
      if (!pending) return;
      pending.verifier = pending.verifier.slice(0, -1) + (pending.verifier.endsWith("A") ? "B" : "A");
      store.setItem("scribe.oidc.pending", JSON.stringify(pending));
    });
    await page.goto(`${sys.baseUrl}/signin`);
    await page.getByRole("button", { name: "Sign in with Example SSO" }).click();
    await page.getByRole("button", { name: "Continue" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("code_verifier does not match");
    expect(await storedToken(page)).toBeNull();
    await page.close();
  });
});

describe("AUTH_BACKEND=none", () => {
  let sys: TestSystem;

  beforeAll(async () => {
    sys = await startSystem({ label: "webauthnone", services: ["rooms", "projection", "search", "gateway"], auth: "none" });
  }, 120_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it("offers no sign-in: the list, upload and live pages work as a guest", async () => {
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${sys.baseUrl}/`);
    await page.locator("article[data-transcript-id], p:text('No transcripts.')").first().waitFor();
    expect(await page.getByRole("link", { name: "Sign in" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(0);
    await page.getByRole("link", { name: "Upload" }).click();
    await page.getByLabel("Audio or video file").waitFor();
    await page.getByRole("link", { name: "Record" }).click();
    await page.getByRole("button", { name: "Start recording" }).waitFor();
    await page.goto(`${sys.baseUrl}/signin`);
    await page.getByText("No sign-in needed").waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });
});
