// Signing in to the web app through the identity-provider simulator, as a user would: the app's
// "Sign in with …" button, the provider's login form, and back to the app with a token.
import type { Page } from "playwright-core";

export const TOKEN_KEY = "scribe.token";

export async function signInWithProvider(page: Page, baseUrl: string, email = "alice@example.com"): Promise<void> {
  await page.goto(`${baseUrl}/signin`);
  await page.getByRole("button", { name: /^Sign in with / }).click();
  await page.getByLabel("E-mail").fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL(`${baseUrl}/transcripts`);
  await page.getByRole("button", { name: "Sign out" }).waitFor();
  // Signed in: the list the test starts from has loaded.
  await page.locator("article[data-transcript-id], p:text('No transcripts.')").first().waitFor();
}

/** The token the app keeps for the signed-in user. */
export function storedToken(page: Page): Promise<string | null> {
  return page.evaluate(
    (key) => (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem(key),
    TOKEN_KEY,
  );
}
