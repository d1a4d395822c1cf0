// HTTP byte ranges (RFC 7233), single range only: `a-b` (end clamped to the last byte), `a-`, and the
// suffix form `-N` (the last N bytes; the reference reads it as `0-N`, a quirk not copied).
export type RangeResult = { start: number; end: number } | "unsatisfiable";

export function parseRange(header: string, size: number): RangeResult {
  // Anything else — other units, several ranges, garbage — is answered 416 as the reference does.
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return "unsatisfiable";
  const [, a = "", b = ""] = m;
  if (a === "") {
    const n = Number(b);
    if (!Number.isSafeInteger(n) || n === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  if (!Number.isSafeInteger(start) || start >= size) return "unsatisfiable";
  if (b === "") return { start, end: size - 1 };
  // A last byte past the end (even a huge one) is clamped to the object's end.
  const last = Number(b);
  if (last < start) return "unsatisfiable";
  return { start, end: Math.min(last, size - 1) };
}
