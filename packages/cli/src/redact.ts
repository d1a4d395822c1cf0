// What the operator tools print never shows a secret (issue 15.14): fields known to hold one are
// replaced, and so are passwords in URLs (ICS feeds, webhook receivers), in events read from old
// streams, dead letters and error texts alike.

export const REDACTED = "[redacted]";

/** Field names whose values are secrets wherever they appear. */
const SECRET_FIELDS =
  /^(webhook_secret|secret|secret_key|password|password_hash|api_key|key_hash|token|access_token|refresh_token|smtp_password|zulip_api_key|daily_api_key|whereby_api_key)$/i;

/** `scheme://user:password@host` → the password replaced. */
function redactUrlPasswords(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@"']+:)[^\s/@"']+@/gi, `$1${REDACTED}@`);
}

/** A copy of `value` without secrets (JSON-shaped values). */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === "string") return redactUrlPasswords(value);
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_FIELDS.test(k) && v !== null && v !== "" ? REDACTED : redactSecrets(v)]),
    );
  }
  return value;
}

/** Secrets in free text (error reasons): `"field":"value"` pairs of secret fields and URL passwords. */
export function redactSecretsInText(text: string): string {
  return redactUrlPasswords(text).replace(/("([a-z_]+)"\s*:\s*)"[^"]*"/gi, (whole, prefix: string, field: string) =>
    SECRET_FIELDS.test(field) ? `${prefix}"${REDACTED}"` : whole,
  );
}
