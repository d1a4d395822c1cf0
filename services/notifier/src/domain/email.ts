// The transcript e-mail (behaviour-search-notify-auth §4.2) and who gets it after processing (§4.6):
// subject, plain and HTML parts, and the with-link / without-link recipient groups. Pure.
import type { EmailRecipient } from "@scribe/contracts";

export interface EmailSettings {
  SMTP_HOST: string;
  SMTP_FROM_EMAIL: string;
}

/** E-mail is configured when both the server and the sender address are set (reference). */
export function emailConfigured(s: EmailSettings): boolean {
  return s.SMTP_HOST !== "" && s.SMTP_FROM_EMAIL !== "";
}

export interface TranscriptEmailContent {
  title: string | null;
  shortSummary: string | null;
  /** Lines `[MM:SS] <speaker>: <text>`; empty when there are no topics. */
  timestampedText: string;
  /** The transcript's page, or null to leave the link out. */
  url: string | null;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

export const EMAIL_FOOTER = "This email was sent because you requested to receive the transcript from a meeting.";

const titleOf = (t: string | null) => t || "Unnamed recording";

export function emailSubject(title: string | null): string {
  return `Reflector: ${titleOf(title)}`;
}

export function emailText(c: TranscriptEmailContent): string {
  const lines = [`Reflector: ${titleOf(c.title)}`, ""];
  if (c.shortSummary) lines.push("Summary:", c.shortSummary, "");
  if (c.timestampedText) lines.push("Transcript:", c.timestampedText, "");
  if (c.url) lines.push(`View transcript: ${c.url}`, "");
  lines.push(EMAIL_FOOTER);
  return lines.join("\n");
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
}

const LINE = /^\[(\d+:\d{2})\] ([^:]+): (.*)$/;

function transcriptLine(line: string): string {
  const m = LINE.exec(line);
  if (!m) return `<div style="margin-bottom:4px">${escapeHtml(line)}</div>`;
  return (
    `<div style="margin-bottom:4px"><span style="color:#888;font-size:12px">[${escapeHtml(m[1]!)}]</span> ` +
    `<strong>${escapeHtml(m[2]!)}:</strong> ${escapeHtml(m[3]!)}</div>`
  );
}

export function emailHtml(c: TranscriptEmailContent): string {
  const parts = [
    `<div style="font-family:Arial,Helvetica,sans-serif;max-width:600px;margin:0 auto;color:#333">`,
    `<h2>${escapeHtml(titleOf(c.title))}</h2>`,
  ];
  if (c.shortSummary) parts.push(`<p style="color:#555">${escapeHtml(c.shortSummary)}</p>`);
  if (c.timestampedText) {
    const lines = c.timestampedText.split("\n").filter((l) => l.trim() !== "");
    parts.push(
      "<h3>Transcript</h3>",
      `<div style="background:#f5f5f5;padding:12px;border-radius:4px;max-height:600px;overflow-y:auto;font-size:14px;line-height:1.5">`,
      ...lines.map(transcriptLine),
      "</div>",
    );
  }
  if (c.url) {
    parts.push(
      `<p style="margin:24px 0"><a href="${escapeHtml(c.url)}" style="background:#4A90D9;color:#fff;padding:10px 20px;border-radius:4px;text-decoration:none;display:inline-block">View Transcript</a></p>`,
    );
  }
  parts.push(`<p style="color:#999;font-size:12px">${escapeHtml(EMAIL_FOOTER)}</p>`, "</div>");
  return parts.join("\n");
}

export function renderEmail(c: TranscriptEmailContent): RenderedEmail {
  return { subject: emailSubject(c.title), text: emailText(c), html: emailHtml(c) };
}

export interface PlannedRecipient {
  to: string;
  include_link: boolean;
  kind: "meeting_recipient" | "room_recipient";
}

/**
 * Who gets the transcript after processing: the meeting's recipients with the link they were
 * promised, and the room's address always with the link (it moves out of the without-link group).
 * Addresses compare ignoring letter case (as the meetings service stores them); the first entry wins.
 */
export function recipientsAfterProcessing(meetingRecipients: readonly EmailRecipient[], roomAddress: string | null): PlannedRecipient[] {
  const out = new Map<string, PlannedRecipient>();
  for (const r of meetingRecipients) {
    const to = r.email.trim();
    if (to && !out.has(to.toLowerCase())) out.set(to.toLowerCase(), { to, include_link: r.include_link, kind: "meeting_recipient" });
  }
  const room = roomAddress?.trim();
  if (room) out.set(room.toLowerCase(), { to: out.get(room.toLowerCase())?.to ?? room, include_link: true, kind: "room_recipient" });
  return [...out.values()];
}
