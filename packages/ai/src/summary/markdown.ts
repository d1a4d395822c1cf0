// The long summary's markdown (behaviour §7.7): `# Quick recap`, then `# Summary` with one bold
// subject and its paragraph each.
import type { SubjectSummary } from "../types";

export function longSummaryMarkdown(recap: string, subjects: readonly SubjectSummary[]): string {
  const lines: string[] = [];
  if (recap) lines.push("# Quick recap", "", recap, "");
  if (subjects.length) {
    lines.push("# Summary", "");
    for (const s of subjects) lines.push(`**${s.subject}**`, s.summary, "");
  }
  return lines.join("\n");
}
