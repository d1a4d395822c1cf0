// Webhook signatures exactly as each platform signs (behaviour §4): Daily over the raw bytes,
// Whereby over Python's compact re-serialisation of the parsed body.
import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  compactJson,
  parseWherebySignature,
  pythonNumber,
  signedAtSeconds,
  verifyDailySignature,
  verifyWherebySignature,
  wherebySignature,
  withinWindow,
} from "../src/domain/webhook-signatures";

const secret = randomBytes(32).toString("base64");
const body = Buffer.from('{"version":"1.0.0","type":"participant.joined","id":"e1","payload":{"room":"r"},"event_ts":1}');
const sign = (key: string, ts: string, raw: Buffer) =>
  createHmac("sha256", Buffer.from(key, "base64")).update(`${ts}.`).update(raw).digest("base64");

describe("Daily webhook signature", () => {
  const ts = "1767261600";
  it("verifies base64 HMAC-SHA256 keyed with the base64-decoded secret over `<timestamp>.<raw body>`", () => {
    expect(verifyDailySignature({ secretBase64: secret, timestamp: ts, signature: sign(secret, ts, body), rawBody: body })).toBe(true);
  });
  it("refuses a body changed by one byte (the raw bytes are what is signed)", () => {
    const changed = Buffer.from(body.toString().replace('"r"', '"s"'));
    expect(verifyDailySignature({ secretBase64: secret, timestamp: ts, signature: sign(secret, ts, body), rawBody: changed })).toBe(false);
    const respaced = Buffer.from(body.toString().replace(",", ", "));
    expect(verifyDailySignature({ secretBase64: secret, timestamp: ts, signature: sign(secret, ts, body), rawBody: respaced })).toBe(false);
  });
  it("refuses another timestamp, another secret, or missing parts", () => {
    const sig = sign(secret, ts, body);
    expect(verifyDailySignature({ secretBase64: secret, timestamp: "1767261601", signature: sig, rawBody: body })).toBe(false);
    expect(verifyDailySignature({ secretBase64: randomBytes(32).toString("base64"), timestamp: ts, signature: sig, rawBody: body })).toBe(
      false,
    );
    expect(verifyDailySignature({ secretBase64: "", timestamp: ts, signature: sig, rawBody: body })).toBe(false);
    expect(verifyDailySignature({ secretBase64: secret, timestamp: undefined, signature: sig, rawBody: body })).toBe(false);
    expect(verifyDailySignature({ secretBase64: secret, timestamp: ts, signature: undefined, rawBody: body })).toBe(false);
  });
  it("refuses a secret that is not base64", () => {
    expect(
      verifyDailySignature({ secretBase64: "not base64!", timestamp: ts, signature: sign("not base64!", ts, body), rawBody: body }),
    ).toBe(false);
  });
});

describe("signature age (replay window)", () => {
  const now = new Date("2026-01-01T10:00:00Z");
  const s = now.getTime() / 1000;
  it("reads seconds, and milliseconds when a platform sends those", () => {
    expect(signedAtSeconds(String(s))).toBe(s);
    expect(signedAtSeconds(String(s * 1000 + 123))).toBe(s);
    expect(signedAtSeconds("12.5")).toBeNull();
    expect(signedAtSeconds("abc")).toBeNull();
  });
  it("accepts a signature within the window either side of now, and refuses an older one", () => {
    expect(withinWindow(s - 300, now, 300)).toBe(true);
    expect(withinWindow(s + 30, now, 300)).toBe(true);
    expect(withinWindow(s - 301, now, 300)).toBe(false);
    expect(withinWindow(s + 301, now, 300)).toBe(false);
  });
});

describe("Whereby webhook signature", () => {
  // Python: json.dumps(json.loads(text), separators=(",", ":")) — what the reference signs over.
  const text = `{ "b": 1, "1": 2, "name": "Zoë ☃ 😀", "s": "a\\"b\\\\c\\n\\t\\u0001\\u007f/<>",
    "f": [1.5, 1.50, 1e5, 1E-7, 0.0001, 1e16, 123456789012345678901234567890, -0, -0.0, 2.5e-5, 1e22, 12345678901234567.0, 0.1],
    "o": {}, "a": [], "t": true, "n": null }`;
  const python =
    '{"b":1,"1":2,"name":"Zo\\u00eb \\u2603 \\ud83d\\ude00","s":"a\\"b\\\\c\\n\\t\\u0001\\u007f/<>",' +
    '"f":[1.5,1.5,100000.0,1e-07,0.0001,1e+16,123456789012345678901234567890,0,-0.0,2.5e-05,1e+22,1.2345678901234568e+16,0.1],' +
    '"o":{},"a":[],"t":true,"n":null}';

  it("re-serialises the body as Python's compact json.dumps does (key order, ASCII escapes, number forms)", () => {
    expect(compactJson(text)).toBe(python);
  });
  it("prints floats as Python's repr", () => {
    expect(["3", "3.0", "3.14", "1e21", "-1.5e-10", "100.0", "1e-4", "9007199254740993"].map(pythonNumber)).toEqual([
      "3",
      "3.0",
      "3.14",
      "1e+21",
      "-1.5e-10",
      "100.0",
      "0.0001",
      "9007199254740993",
    ]);
  });
  it("verifies hex HMAC-SHA256 over `<t>.` + the compact body, whatever the body's whitespace", () => {
    const key = "whereby-secret";
    const compact =
      '{"apiVersion":"1.0","id":"x","createdAt":"2026-01-01T10:00:00.000Z","type":"room.client.joined","data":{"meetingId":"1"}}';
    const v1 = createHmac("sha256", key).update(`1767261600.${compact}`).digest("hex");
    expect(wherebySignature(key, "1767261600", compact)).toBe(v1);
    const pretty = JSON.stringify(JSON.parse(compact), null, 2);
    expect(verifyWherebySignature({ secret: key, header: `t=1767261600,v1=${v1}`, jsonText: pretty })).toEqual({ t: "1767261600" });
    expect(verifyWherebySignature({ secret: key, header: `t=1767261601,v1=${v1}`, jsonText: compact })).toBeNull();
    expect(verifyWherebySignature({ secret: key, header: `t=1767261600,v1=${v1}`, jsonText: compact.replace('"1"', '"2"') })).toBeNull();
    expect(verifyWherebySignature({ secret: "", header: `t=1767261600,v1=${v1}`, jsonText: compact })).toBeNull();
    expect(verifyWherebySignature({ secret: key, header: undefined, jsonText: compact })).toBeNull();
  });
  it("parses the whereby-signature header", () => {
    expect(parseWherebySignature("t=1, v1=ab")).toEqual({ t: "1", v1: "ab" });
    expect(parseWherebySignature("v1=ab")).toBeNull();
    expect(parseWherebySignature("garbage")).toBeNull();
  });
});
