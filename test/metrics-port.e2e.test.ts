// Where /metrics is served (issue 15.12): on the ops port always, on the public API port only when
// METRICS_ON_API_PORT opts in.
import { describe, expect, it } from "vitest";
import { unusedPort } from "./support/dev-stack";
import { startSystem } from "./support/system";

describe("/metrics", () => {
  it("is on the ops port, not on the API port, by default", async () => {
    const ops = await unusedPort();
    const sys = await startSystem({ label: "metricsdefault", services: ["gateway"], env: { OPS_PORT: String(ops) } });
    try {
      expect((await sys.client(null).GET("/metrics", { parseAs: "text" })).response.status).toBe(404);
      // Raw: the ops port is not the API the client describes.
      const scraped = await fetch(`http://127.0.0.1:${ops}/metrics`);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toMatch(/^# HELP /m);
    } finally {
      await sys.stop();
    }
  });

  it("is on the API port too with METRICS_ON_API_PORT=true", async () => {
    const sys = await startSystem({ label: "metricsapi", services: ["gateway"], env: { METRICS_ON_API_PORT: "true" } });
    try {
      const { data, response } = await sys.client(null).GET("/metrics", { parseAs: "text" });
      expect(response.status).toBe(200);
      expect(data).toMatch(/^# HELP /m);
    } finally {
      await sys.stop();
    }
  });
});
