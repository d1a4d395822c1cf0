// Deterministic ids: a step re-run after its worker died must write the same topics and
// participants, so the port sees the same values and emits nothing new.
import { createHash } from "node:crypto";

/** A UUID-shaped (version 5 style) id derived from the parts. */
export function stableId(...parts: (string | number)[]): string {
  const h = createHash("sha1").update(parts.join("\u0000")).digest("hex");
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
