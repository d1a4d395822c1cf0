// A 422's `detail[]` split by the body field each entry names (`loc: ["body", "<field>", …]`), so a
// form can show each message next to its field; entries naming no field land under "".
export function fieldErrors(error: unknown): Record<string, string> {
  const detail = (error as { detail?: unknown } | undefined)?.detail;
  if (!Array.isArray(detail)) return {};
  const byField: Record<string, string> = {};
  for (const issue of detail as { loc?: unknown[]; msg?: string }[]) {
    const loc = issue.loc ?? [];
    const field = loc[0] === "body" && typeof loc[1] === "string" ? loc[1] : "";
    byField[field] = byField[field] ? `${byField[field]}; ${issue.msg ?? "invalid"}` : (issue.msg ?? "invalid");
  }
  return byField;
}
