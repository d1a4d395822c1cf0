// Datetimes as the reference prints transcript timestamps (Python's isoformat of an aware UTC value):
// `2026-01-02T03:04:05+00:00`, with `.ffffff` only when there is a fractional part.
export function isoformatUtc(value: Date | string): string {
  const d = typeof value === "string" ? new Date(value) : value;
  const base = d.toISOString().slice(0, 19);
  const ms = d.getUTCMilliseconds();
  return ms === 0 ? `${base}+00:00` : `${base}.${String(ms).padStart(3, "0")}000+00:00`;
}
