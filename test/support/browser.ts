// Headless Chromium (Debian's `chromium`, driven by playwright-core) for browser tests, with the flags it
// needs on these machines, a page that records every problem a user would meet, and the app's build.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export type { BrowserContext };

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ROOT = join(import.meta.dirname, "..", "..");
/** Screenshots of each page, kept as test artefacts. */
export const SCREENSHOTS = join(ROOT, ".data", "screenshots");

const HEADLESS_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Flags that give the browser a microphone playing `wav` (and grant it without a prompt). */
export function fakeMicrophoneFlags(wav: string): string[] {
  return ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", `--use-file-for-fake-audio-capture=${wav}`];
}

export async function launchChromium(extraFlags: string[] = []): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: [...HEADLESS_FLAGS, ...extraFlags] });
}

/** The gateway serves whatever services/web/dist holds when it starts, so build the current source first. */
export function buildWebApp(): void {
  execFileSync("pnpm", ["--filter", "@scribe/web", "build"], { cwd: ROOT, stdio: "ignore" });
}

/**
 * A page that records every console error, uncaught exception and failed or non-2xx API call; opened
 * in `context` it shares that context's storage (e.g. a signed-in session).
 */
export async function watchedPage(browser: Browser | BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`exception: ${e.message}`));
  // A request the test's own next navigation (a reload, a goto) cut off is aborted by the browser,
  // not failed by the app: a list's rooms fetch still in flight when a poll reloads the page was one.
  let navigatedAt = -Infinity;
  page.on("request", (r) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) navigatedAt = Date.now();
  });
  page.on("requestfailed", (r) => {
    const error = r.failure()?.errorText;
    if (r.url().includes("/audio/") || (error === "net::ERR_ABORTED" && r.timing().startTime < navigatedAt)) return;
    problems.push(`failed: ${r.url()} ${error}`);
  });
  page.on("response", (r) => r.url().includes("/v1/") && r.status() >= 400 && problems.push(`${r.status()}: ${r.url()}`));
  return { page, problems };
}

/** Sign in through the app's password form and wait until the transcripts list has loaded. */
export async function signInThroughForm(page: Page, baseUrl: string, user: { email: string; password: string }): Promise<void> {
  await page.goto(`${baseUrl}/signin`);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${baseUrl}/transcripts`);
  // Signed in: the list the test starts from has loaded.
  await page.locator("article[data-transcript-id], p:text('No transcripts.')").first().waitFor();
}
