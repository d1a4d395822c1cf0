// The browser tests' watched page (test/support/browser.ts) records what a user would meet: a request
// that failed is a problem, one the test's own navigation cut off is not.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, watchedPage } from "./support/browser";
import type { Browser } from "playwright-core";

let browser: Browser;
let server: Server;
let origin: string;

// A page that asks for `/slow` (answered after 5 s) or `/gone` (the connection dropped) when it loads.
const pageFetching = (path: string) =>
  `<!doctype html><title>watched</title><script>fetch(${JSON.stringify(path)}).catch(() => {})</script>`;

beforeAll(async () => {
  browser = await launchChromium();
  server = createServer((req, res) => {
    if (req.url === "/slow") setTimeout(() => res.end("late"), 5_000).unref();
    else if (req.url === "/gone") req.socket.destroy();
    else res.setHeader("content-type", "text/html").end(pageFetching(req.url === "/drops" ? "/gone" : "/slow"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("a watched page", () => {
  it("does not count a request that its own reload cut off", async () => {
    const { page, problems } = await watchedPage(browser);
    const slow = page.waitForRequest(`${origin}/slow`);
    await page.goto(`${origin}/`);
    await slow;
    const aborted = page.waitForEvent("requestfailed");
    await page.reload();
    expect((await aborted).failure()?.errorText).toBe("net::ERR_ABORTED");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("counts a request that failed without a navigation", async () => {
    const { page, problems } = await watchedPage(browser);
    const failed = page.waitForEvent("requestfailed");
    await page.goto(`${origin}/drops`);
    await failed;
    expect(problems).toEqual([expect.stringMatching(/^failed: http:\/\/127\.0\.0\.1:\d+\/gone net::ERR_/)]);
    await page.close();
  });
});
