// Byte-range rules of the media routes (RFC 7233, single range).
import { describe, expect, it } from "vitest";
import { parseRange } from "../src/http/range";

describe("parseRange", () => {
  it.each([
    ["bytes=0-99", { start: 0, end: 99 }],
    ["bytes=100-", { start: 100, end: 999 }],
    ["bytes=990-5000", { start: 990, end: 999 }],
    ["bytes=0-99999999999999999999999", { start: 0, end: 999 }],
    [" bytes=5-5 ", { start: 5, end: 5 }],
  ])("reads %s as an inclusive range, clamping the end to the last byte", (header, range) => {
    expect(parseRange(header, 1000)).toEqual(range);
  });

  it("reads bytes=-N as the last N bytes (a suffix), not as 0-N like the reference", () => {
    expect(parseRange("bytes=-100", 1000)).toEqual({ start: 900, end: 999 });
    expect(parseRange("bytes=-5000", 1000)).toEqual({ start: 0, end: 999 });
  });

  it.each(["bytes=1000-", "bytes=5-2", "bytes=-0", "bytes=0-1,5-6", "bytes=-", "bytes=a-b", "items=0-1", ""])(
    "finds %j unsatisfiable",
    (header) => expect(parseRange(header, 1000)).toBe("unsatisfiable"),
  );

  it("finds every range of an empty object unsatisfiable", () => {
    expect(parseRange("bytes=0-", 0)).toBe("unsatisfiable");
    expect(parseRange("bytes=-1", 0)).toBe("unsatisfiable");
  });
});
