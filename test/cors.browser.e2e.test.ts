// A web app served from another origin can read what the gateway answers besides the body — in
// particular `Scribe-Versions` (read-your-writes, docs/ARCHITECTURE.md), which it sends back to
// whichever gateway replica serves its next request. A browser hides response headers a
// cross-origin fetch may not read, so this is checked in a real one.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./support/browser";
import { startSystem, type TestSystem } from "./support/system";

let sys: TestSystem;
let browser: Browser;
let pageServer: Server;
let pageOrigin: string;

beforeAll(async () => {
  sys = await startSystem({ label: "cors", services: ["rooms", "gateway"] });
  browser = await launchChromium();
  // Another port is another origin: the page's fetches to the gateway are cross-origin.
  pageServer = createServer((_, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>app</title>"));
  await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => pageServer?.close(resolve));
  await sys?.stop();
});

describe("CORS", () => {
  it("lets a page on another origin read Scribe-Versions and the request id", async () => {
    const page = await browser.newPage();
    await page.goto(pageOrigin);
    const seen = await page.evaluate(
      async ({ gateway, token }) => {
        // Raw: runs in a page on another origin, as that page's own code would.
        const res = await fetch(`${gateway}/v1/rooms`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ name: "cors-room" }),
        });
        return { status: res.status, versions: res.headers.get("scribe-versions"), requestId: res.headers.get("x-request-id") };
      },
      { gateway: sys.baseUrl, token: await sys.token("alice") },
    );
    expect(seen.status).toBe(200);
    // The room under both lookups, and the rooms' feed position its creation took.
    expect(seen.versions).toMatch(/^room:id:[0-9a-f-]{36}=1,room:name:cors-room=1,room:feed:\*=[1-9]\d*$/);
    expect(seen.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await page.close();
  });
});
