// The team-chat (Zulip) message reporting a transcript (behaviour-search-notify-auth §5.3). Pure.
import { transcriptUrl } from "./webhook";

/** Python's str(timedelta) without microseconds, a leading "0:" dropped: 65 → "01:05", 3725 → "1:02:05". */
export function formatTime(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const days = Math.floor(total / 86_400);
  const rest = total % 86_400;
  const h = Math.floor(rest / 3600);
  const m = Math.floor((rest % 3600) / 60);
  const s = rest % 60;
  const clock = `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
  const text = days > 0 ? `${days} day${days === 1 ? "" : "s"}, ${clock}` : clock;
  return text.startsWith("0:") ? text.slice(2) : text;
}

/** A transcript duration (milliseconds) floored to whole seconds. */
export function formatDurationMs(ms: number): string {
  return formatTime(Math.floor(ms / 1000));
}

/** ISO 8601 with a numeric offset, as Python's isoformat() writes UTC (`+00:00`, not `Z`). */
function isoWithOffset(iso: string): string {
  return iso.endsWith("Z") ? `${iso.slice(0, -1)}+00:00` : iso;
}

export interface ZulipMessageInput {
  id: string;
  title: string | null;
  created_at: string;
  /** Milliseconds. */
  duration: number;
  long_summary: string | null;
  topics: readonly { title: string; timestamp: number }[];
  includeTopics: boolean;
  uiBaseUrl: string;
}

export function zulipMessage(t: ZulipMessageInput): string {
  const url = transcriptUrl(t.uiBaseUrl, t.id);
  let text = `# Reflector – ${t.title || "Unnamed recording"}\n\n`;
  text += `**Date**: <time:${isoWithOffset(t.created_at)}>\n`;
  text += `**Link**: [${new URL(url).host}](${url})\n`;
  text += `**Duration**: ${formatDurationMs(t.duration)}\n\n`;
  text += "```spoiler Summary\n" + (t.long_summary || "No summary available") + "\n```\n\n";
  if (t.includeTopics && t.topics.length) {
    // Every line starts with "1.": Zulip numbers the list itself.
    text += "```spoiler Topics\n" + t.topics.map((x) => `1. [${formatTime(x.timestamp)}] ${x.title}\n`).join("") + "```\n\n";
  }
  return `${text}-----\n`;
}
