// Signature checks of incoming platform webhooks, exactly as each platform signs (behaviour §4):
// Daily signs the raw body, Whereby a compact re-serialisation of the parsed JSON. Pure: the clock
// comes in as `now`.
import { createHmac, timingSafeEqual } from "node:crypto";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function equalStrings(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Seconds since the epoch from a signed timestamp header (milliseconds are accepted too). */
export function signedAtSeconds(value: string): number | null {
  if (!/^\d{1,16}$/.test(value.trim())) return null;
  const n = Number(value.trim());
  return n > 1e12 ? Math.floor(n / 1000) : n;
}

export function withinWindow(signedAt: number, now: Date, maxAgeSeconds: number): boolean {
  return Math.abs(now.getTime() / 1000 - signedAt) <= maxAgeSeconds;
}

/**
 * Daily: `X-Webhook-Signature` = standard base64 of HMAC-SHA256, keyed with the base64-decoded
 * secret, over `<X-Webhook-Timestamp>.<raw body>`. A missing secret, signature or timestamp, or a
 * secret that is not base64, never verifies.
 */
export function dailySignature(secretBase64: string, timestamp: string, rawBody: Uint8Array): string {
  return createHmac("sha256", Buffer.from(secretBase64, "base64")).update(`${timestamp}.`).update(rawBody).digest("base64");
}

export function verifyDailySignature(args: {
  secretBase64: string;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Uint8Array;
}): boolean {
  const { secretBase64, timestamp, signature, rawBody } = args;
  if (!secretBase64 || !BASE64.test(secretBase64) || !timestamp || !signature) return false;
  return equalStrings(dailySignature(secretBase64, timestamp, rawBody), signature.trim());
}

/** Whereby's `whereby-signature: t=<unix seconds>,v1=<hex>`. */
export function parseWherebySignature(header: string | undefined): { t: string; v1: string } | null {
  if (!header) return null;
  const parts = new Map(
    header.split(",").map((p) => {
      const i = p.indexOf("=");
      return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const;
    }),
  );
  const t = parts.get("t");
  const v1 = parts.get("v1");
  return t && v1 ? { t, v1 } : null;
}

/**
 * Whereby: hex HMAC-SHA256 keyed with the secret (UTF-8) over `<t>.` + the body re-serialised as
 * compact JSON (`,` and `:` separators, original key order, non-ASCII escaped) — the way the
 * reference verifies, so the body's own whitespace does not matter.
 */
export function wherebySignature(secret: string, t: string, jsonText: string): string {
  return createHmac("sha256", secret)
    .update(`${t}.${compactJson(jsonText)}`)
    .digest("hex");
}

export function verifyWherebySignature(args: { secret: string; header: string | undefined; jsonText: string }): { t: string } | null {
  const parsed = parseWherebySignature(args.header);
  if (!args.secret || !parsed) return null;
  return equalStrings(wherebySignature(args.secret, parsed.t, args.jsonText), parsed.v1.toLowerCase()) ? { t: parsed.t } : null;
}

/**
 * Compact re-serialisation of valid JSON text as Python's `json.dumps(obj, separators=(",", ":"))`
 * writes it (what the reference signs over): key order and duplicates kept as written, strings
 * escaped ASCII-only, numbers as Python prints them after parsing (`1.50` → `1.5`, `1E5` →
 * `100000.0`). Works on the text, not on a JS object, because JS reorders integer-like keys.
 */
export function compactJson(text: string): string {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const value = (): string => {
    ws();
    const c = text[i];
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i++;
      const items: string[] = [];
      ws();
      if (text[i] === close) {
        i++;
        return c + close;
      }
      for (;;) {
        if (c === "{") {
          ws();
          const key = string();
          ws();
          i++; // ':'
          items.push(`${key}:${value()}`);
        } else {
          items.push(value());
        }
        ws();
        if (text[i++] === close) return c + items.join(",") + close;
      }
    }
    if (c === '"') return string();
    const start = i;
    while (i < text.length && !",]} \t\n\r".includes(text[i]!)) i++;
    const literal = text.slice(start, i);
    if (literal === "true" || literal === "false" || literal === "null") return literal;
    return pythonNumber(literal);
  };
  const string = (): string => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return pythonString(JSON.parse(text.slice(start, i)) as string);
  };
  return value();
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

/** A string as Python's json.dumps (ensure_ascii) writes it: printable ASCII as is, the rest \uXXXX. */
export function pythonString(s: string): string {
  let out = '"';
  for (let k = 0; k < s.length; k++) {
    const ch = s[k]!;
    const code = s.charCodeAt(k);
    const short = SHORT_ESCAPES[ch];
    if (short) out += short;
    else if (code >= 0x20 && code <= 0x7e) out += ch;
    else out += `\\u${code.toString(16).padStart(4, "0")}`;
  }
  return `${out}"`;
}

/** A JSON number literal as Python prints its parsed value (int exact; float by repr). */
export function pythonNumber(literal: string): string {
  if (/^-?\d+$/.test(literal)) return literal === "-0" ? "0" : literal;
  const x = Number(literal);
  if (Object.is(x, -0)) return "-0.0";
  const sign = x < 0 ? "-" : "";
  // toExponential() without digits gives the shortest digits that round-trip, as Python's repr.
  const [mantissa, expText] = Math.abs(x).toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const exp = Number(expText);
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
    const whole = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
    const frac = digits.slice(exp + 1) || "0";
    return `${sign}${whole}.${frac}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
}
