// Scribe's web app in a real browser (Debian's `chromium`, driven by playwright-core) against a
// running stack whose gateway serves the fresh build at `/`: each page loads with no console error
// and no failed API call; a user signs in with the password form, sees their transcript in the list,
// finds it by a search, opens it, edits its title and renames a speaker. Screenshots of each page land in .data/screenshots/.
import { join } from "node:path";
import { decodeJwt, SignJWT } from "jose";
import type { Browser, Page } from "playwright-core";
import { ok } from "@scribe/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onTranscript } from "./support/api";
import { buildWebApp, launchChromium, SCREENSHOTS as SHOTS, signInThroughForm, watchedPage as watched } from "./support/browser";
import { startSystem, TEST_SECRET, type TestSystem } from "./support/system";
import { storedToken, TOKEN_KEY } from "./support/web-sign-in";

// pbkdf2_hmac('sha256', b'admin-pass', b'feedfacecafebeef', 1000), as in auth-password.e2e.test.ts.
const ADMIN_HASH = "pbkdf2:sha256:1000$feedfacecafebeef$4f6709c13dd5711fa65f1d151b403186d7389b61fe10e0e66d64a7d025155991";
const ADMIN = { email: "admin@example.com", password: "admin-pass" };

let sys: TestSystem;
let browser: Browser;

function watchedPage(): Promise<{ page: Page; problems: string[] }> {
  return watched(browser);
}

function signIn(page: Page): Promise<void> {
  return signInThroughForm(page, sys.baseUrl, ADMIN);
}

beforeAll(async () => {
  buildWebApp();
  sys = await startSystem({
    label: "webapp",
    services: ["rooms", "projection", "transcription", "search", "gateway"],
    auth: "password",
    env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD_HASH: ADMIN_HASH },
  });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await sys?.stop();
});

describe("the web app served by the gateway", () => {
  it("answers the app at / and at deep links, and keeps the API's 404s as JSON", async () => {
    // Raw: the app's HTML, its assets and an unknown route are not operations of the API.
    const root = await fetch(`${sys.baseUrl}/`);
    expect(root.status).toBe(200);
    expect(await root.text()).toContain('<div id="app">');
    const deep = await fetch(`${sys.baseUrl}/transcripts/some-id`);
    expect(deep.headers.get("content-type")).toContain("text/html");
    const api = await fetch(`${sys.baseUrl}/v1/no-such-route`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ detail: "Not Found" });
    expect((await fetch(`${sys.baseUrl}/assets/missing.js`)).status).toBe(404);
  });

  it("shows the sign-in page, and a wrong password as the API's message", async () => {
    const { page, problems } = await watchedPage();
    await page.goto(`${sys.baseUrl}/signin`);
    await page.screenshot({ path: join(SHOTS, "sign-in.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill("wrong");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toBe("Invalid email or password");
    await page.close();
  });

  it("signs in, lists the user's transcript, finds it by search, opens it, edits its title and renames a speaker", async () => {
    const { page, problems } = await watchedPage();
    await signIn(page);
    // The API as the signed-in app user, with the token the app stored.
    const api = sys.clientWith({ token: (await storedToken(page))! });
    const { id } = await ok(api.POST("/v1/transcripts", { body: { name: "Quarterly planning" } }));
    await ok(api.PATCH("/v1/transcripts/{transcript_id}", { ...onTranscript(id), body: { title: "Quarterly planning" } }));
    await ok(api.POST("/v1/transcripts/{transcript_id}/participants", { ...onTranscript(id), body: { name: "Speaker A", speaker: 0 } }));

    // The search index follows the transcript's events: wait until it has the title, then load the list.
    await expect
      .poll(
        async () => (await ok(api.GET("/v1/transcripts/search", { params: { query: { q: "" } } }))).results.find((r) => r.id === id)?.title,
        { timeout: 30_000 },
      )
      .toBe("Quarterly planning");
    await page.goto(`${sys.baseUrl}/transcripts`);
    const item = page.locator(`article[data-transcript-id="${id}"]`);
    await item.waitFor();
    expect(await item.locator("strong").textContent()).toBe("Quarterly planning");
    await page.screenshot({ path: join(SHOTS, "transcripts.png"), fullPage: true });

    await page.getByLabel("Search transcripts").fill("quarterly");
    await page.getByRole("button", { name: "Search" }).click();
    await page.locator("article[data-transcript-id] mark").first().waitFor();
    expect(await page.locator("article[data-transcript-id] mark").first().textContent()).toMatch(/quarterly/i);

    await page.locator(`article[data-transcript-id="${id}"] a`).click();
    await page.waitForURL(`${sys.baseUrl}/transcripts/${id}`);
    await page.getByText("No words yet.").waitFor();
    expect(await page.getByLabel("Title").inputValue()).toBe("Quarterly planning");
    await page.screenshot({ path: join(SHOTS, "transcript.png"), fullPage: true });

    // Editing the title saves it through the API.
    await page.getByLabel("Title").fill("Planning, renamed");
    await page.getByLabel("Title").press("Enter");
    await expect.poll(async () => (await ok(api.GET("/v1/transcripts/{transcript_id}", onTranscript(id)))).title).toBe("Planning, renamed");

    // Renaming a speaker saves the participant's new name.
    await page.getByText("Speakers").click();
    await page.getByLabel("Speaker 0").fill("Alice");
    await page.getByLabel("Speaker 0").press("Enter");
    await expect
      .poll(async () => (await ok(api.GET("/v1/transcripts/{transcript_id}/participants", onTranscript(id)))).map((p) => p.name))
      .toEqual(["Alice"]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("pages through the list, and shows the trash with restore", async () => {
    const { page, problems } = await watchedPage();
    await signIn(page);
    const api = sys.clientWith({ token: (await storedToken(page))! });
    const ids: string[] = [];
    for (let i = 1; i <= 21; i++) ids.push((await ok(api.POST("/v1/transcripts", { body: { name: `Paged ${i}` } }))).id);
    const searchTotal = async (includeDeleted = false) =>
      (await ok(api.GET("/v1/transcripts/search", { params: { query: { q: "", ...(includeDeleted ? { include_deleted: true } : {}) } } })))
        .total;
    await expect.poll(() => searchTotal(), { timeout: 30_000 }).toBeGreaterThan(21);
    const total = await searchTotal();

    await page.goto(`${sys.baseUrl}/transcripts`);
    const pages = page.getByRole("navigation", { name: "Pages" });
    await pages.getByText(`1–20 of ${total}`).waitFor();
    expect(await page.locator("article[data-transcript-id]").count()).toBe(20);
    expect(await pages.getByRole("button", { name: "Previous" }).isDisabled()).toBe(true);
    await pages.getByRole("button", { name: "Next" }).click();
    await pages.getByText(`21–${total} of ${total}`).waitFor();
    expect(await page.locator("article[data-transcript-id]").count()).toBe(total - 20);
    expect(await pages.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);
    await pages.getByRole("button", { name: "Previous" }).click();
    await pages.getByText(`1–20 of ${total}`).waitFor();

    // Deleted through the API: in the trash only, and back in the list after Restore.
    const deleted = ids[0]!;
    await ok(api.DELETE("/v1/transcripts/{transcript_id}", onTranscript(deleted)));
    await expect.poll(() => searchTotal(true), { timeout: 30_000 }).toBe(1);
    await page.getByRole("switch", { name: "Show trash" }).check();
    await page.getByRole("heading", { name: "Trash", level: 1 }).waitFor();
    const trashed = page.locator(`article[data-transcript-id="${deleted}"]`);
    await trashed.waitFor();
    expect(await page.locator("article[data-transcript-id]").count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, "transcripts-trash.png"), fullPage: true });
    await trashed.getByRole("button", { name: "Restore" }).click();
    await page.getByText("No transcripts.").waitFor();
    await ok(api.GET("/v1/transcripts/{transcript_id}", onTranscript(deleted)));
    expect(problems).toEqual([]);
    await page.close();
  });

  it("sends a user whose token stopped working to sign-in with a message, and back to where they were", async () => {
    const { page, problems } = await watchedPage();
    await signIn(page);
    // The same user's token, expired an hour ago (as a token the app kept overnight would be).
    const claims = decodeJwt((await storedToken(page))!);
    const expired = await new SignJWT({ email: claims.email })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(claims.sub!)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(TEST_SECRET));
    await page.evaluate(
      ([key, token]) =>
        (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem(key!, token!),
      [TOKEN_KEY, expired],
    );

    await page.goto(`${sys.baseUrl}/api-keys?tab=mine`);
    await page.waitForURL((url) => url.pathname === "/signin");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/api-keys?tab=mine");
    await page.getByText("Your session has ended (it expired or was revoked).").waitFor();
    expect(await storedToken(page)).toBeNull();
    await page.screenshot({ path: join(SHOTS, "sign-in-expired.png"), fullPage: true });
    // What the user met on the way: the API's 401 to the expired token, nothing else.
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.filter((p) => !p.includes("401"))).toEqual([]);
    problems.length = 0;

    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${sys.baseUrl}/api-keys?tab=mine`);
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    expect(await storedToken(page)).not.toBeNull();
    expect(problems).toEqual([]);
    await page.close();
  });
});
