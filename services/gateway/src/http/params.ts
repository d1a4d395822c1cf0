// Path and query values are checked against what any contract allows before a route runs: no
// control characters (NUL reaches PostgreSQL as an "invalid byte sequence"), bounded length. The
// answer is the FastAPI-shaped 422 naming the parameter, whichever route it was meant for.
// Ids the contract makes UUIDs (api.md §0.1: "IDs are UUID4 strings unless noted") are checked for
// that shape too: a value that is not one names nothing, and answers the 404 the route answers for
// an unknown id (what the reference answers, its path parameters being plain strings) without
// asking a service. Meeting ids (the video platform's), participant and topic ids (clients may name
// participants) are not UUIDs by contract and stay bounded strings.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";

// Control characters are exactly what this looks for.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
/** Longer than any name or id of the contract (room names, UUIDs, API key ids). */
const MAX_PATH_PARAM_LENGTH = 1024;
/** Path parameters whose values are UUIDs by contract, with the route's answer to an unknown one. */
const UUID_PARAMS: Record<string, string> = {
  transcript_id: "Transcript not found",
  room_id: "Room not found",
  key_id: "Not Found",
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Query values also carry link tokens (signed JWTs). */
const MAX_QUERY_VALUE_LENGTH = 16_384;

interface Template {
  segments: string[];
  /** Per segment, the parameter it names (null: a static segment). */
  params: (string | null)[];
  /** Static segments outrank parameters when several templates match. */
  staticCount: number;
}

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

function problem(value: string, maxLength: number): string | null {
  if (CONTROL.test(value)) return "Value must not contain control characters";
  if (value.length > maxLength) return `Value must have at most ${maxLength} characters`;
  return null;
}

/** The routes' path templates by their number of segments (what a request's path is matched against). */
function templatesOf(app: OpenAPIHono<AppEnv>): Map<number, Template[]> {
  const paths = new Set<string>();
  for (const d of app.openAPIRegistry.definitions) if (d.type === "route") paths.add(d.route.path);
  const bySize = new Map<number, Template[]>();
  for (const p of paths) {
    const segments = p.split("/");
    const params = segments.map((s) => /^\{(\w+)\}$/.exec(s)?.[1] ?? null);
    const template = { segments, params, staticCount: params.filter((n) => n === null).length };
    bySize.set(segments.length, [...(bySize.get(segments.length) ?? []), template]);
  }
  return bySize;
}

export function inputGuard(app: OpenAPIHono<AppEnv>): MiddlewareHandler<AppEnv> {
  let templates: Map<number, Template[]> | null = null;
  return async (c, next) => {
    templates ??= templatesOf(app);
    const url = new URL(c.req.url);
    const values = url.pathname.split("/").map(decode);
    const matching = (templates.get(values.length) ?? [])
      .filter((t) => t.params.every((name, i) => name !== null || t.segments[i] === values[i]))
      .sort((a, b) => b.staticCount - a.staticCount)[0];
    const errors: { loc: string[]; msg: string; type: string }[] = [];
    matching?.params.forEach((name, i) => {
      const msg = name ? problem(values[i]!, MAX_PATH_PARAM_LENGTH) : null;
      if (name && msg) errors.push({ loc: ["path", name], msg, type: "value_error" });
    });
    for (const [name, value] of url.searchParams) {
      const msg =
        problem(value, MAX_QUERY_VALUE_LENGTH) ?? (CONTROL.test(name) ? "Parameter names must not contain control characters" : null);
      if (msg) errors.push({ loc: ["query", name.replace(CONTROL, "?")], msg, type: "value_error" });
    }
    if (errors.length) return c.json({ detail: errors }, 422);
    for (const [i, name] of (matching?.params ?? []).entries()) {
      const notFound = name === null ? undefined : UUID_PARAMS[name];
      if (notFound && !UUID.test(values[i]!)) return c.json({ detail: notFound }, 404);
    }
    return next();
  };
}
