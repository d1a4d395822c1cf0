import { Writable } from "node:stream";
import { createLogger } from "@scribe/kit";
import { afterEach, describe, expect, it } from "vitest";
import { useLogFormat } from "../src/log-format";

function collector() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join("") };
}

afterEach(async () => {
  await useLogFormat({}, "json");
});

describe("LOG_FORMAT", () => {
  it("pretty: readable lines with the service and fields, not JSON (the default of scribe dev)", async () => {
    const out = collector();
    expect(await useLogFormat({}, "pretty", out.stream)).toBe("pretty");
    createLogger("rooms", "info").info({ consumer: "projection.rooms" }, "service started");
    expect(out.text()).toMatch(/INFO.*\[rooms\] service started/);
    expect(out.text()).toContain('consumer: "projection.rooms"');
    expect(() => JSON.parse(out.text().split("\n")[0]!)).toThrow();
  });

  it("json wins over a pretty default when set, and a wrong value is named", async () => {
    expect(await useLogFormat({ LOG_FORMAT: "json" }, "pretty")).toBe("json");
    await expect(useLogFormat({ LOG_FORMAT: "xml" }, "json")).rejects.toThrow('LOG_FORMAT: expected one of json, pretty, got "xml"');
  });
});
