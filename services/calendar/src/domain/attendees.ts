// Attendees of a calendar event, from every shape node-ical returns: one ATTENDEE is a value, several
// are an array; each is a plain string or `{params, val}`. The `mailto:` prefix is removed whatever
// its case (the reference keeps an upper-case `MAILTO:` on single attendees, quirk 15); a property
// that lists several addresses separated by commas (a malformed but real-world feed, the reference's
// "attendee parsing bug") becomes one attendee per address. The organizer is listed last with role
// ORGANIZER, as the reference does.
import type { CalendarAttendee } from "@scribe/contracts";

interface PropertyValue {
  val: string;
  params: Record<string, unknown>;
}

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

function propertyValue(value: unknown): PropertyValue | null {
  if (typeof value === "string") return { val: value, params: {} };
  if (value && typeof value === "object" && "val" in value) {
    const { val, params } = value as { val: unknown; params?: unknown };
    if (typeof val !== "string") return null;
    return { val, params: params && typeof params === "object" ? (params as Record<string, unknown>) : {} };
  }
  return null;
}

function param(params: Record<string, unknown>, name: string): string | null {
  const v = params[name];
  if (typeof v === "string") return v.trim() === "" ? null : v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return null;
}

export function stripMailto(value: string): string {
  return value
    .trim()
    .replace(/^mailto:/i, "")
    .trim();
}

function attendeesOf(p: PropertyValue): CalendarAttendee[] {
  const name = param(p.params, "CN");
  const status = param(p.params, "PARTSTAT");
  const role = param(p.params, "ROLE");
  const text = stripMailto(p.val);
  if (text.includes(",")) {
    const emails = text
      .split(",")
      .map(stripMailto)
      .filter((part) => part.includes("@"));
    // The property's parameters describe one person: the first address gets them.
    return emails.map((email, i) => (i === 0 ? { email, name, status, role } : { email, name: null, status: null, role: null }));
  }
  if (text === "" && name === null) return [];
  return [{ email: text === "" ? null : text, name, status, role }];
}

export function parseAttendees(attendee: unknown, organizer: unknown): CalendarAttendee[] {
  const list = asList(attendee)
    .map(propertyValue)
    .filter((p): p is PropertyValue => p !== null)
    .flatMap(attendeesOf);
  const org = propertyValue(organizer);
  if (org) {
    const email = stripMailto(org.val);
    const name = param(org.params, "CN");
    if (email !== "" || name !== null) list.push({ email: email === "" ? null : email, name, status: null, role: "ORGANIZER" });
  }
  return list;
}
