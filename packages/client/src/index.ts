// A typed client for Scribe's HTTP API: openapi-fetch over the types generated from the gateway's
// OpenAPI document (src/schema.ts, `pnpm generate:client`), with Scribe's credentials and errors.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, operations, paths } from "./schema";

export type { components, operations, paths };
/** The API's component schemas by their api.md names: `Schemas["CreateRoom"]`. */
export type Schemas = components["schemas"];
export type ScribeClient = Client<paths>;

/** A credential, or a function asked before every request (a web app refreshing its token). */
type Credential = string | null | undefined | (() => string | null | undefined | Promise<string | null | undefined>);

export interface ScribeClientOptions {
  /** Where the API is, e.g. `http://127.0.0.1:1250` (no `/v1`: paths carry it). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: Credential;
  /** Sent as `X-API-Key` (when a token is given too, the gateway prefers the token). */
  apiKey?: Credential;
  /** Replaces the global fetch (tests, other runtimes). */
  fetch?: (request: Request) => Promise<Response>;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

async function read(credential: Credential): Promise<string | null | undefined> {
  return typeof credential === "function" ? credential() : credential;
}

function credentials(token: Credential, apiKey: Credential): Middleware {
  return {
    async onRequest({ request }) {
      const bearer = await read(token);
      const key = await read(apiKey);
      if (bearer && !request.headers.has("authorization")) request.headers.set("authorization", `Bearer ${bearer}`);
      if (key && !request.headers.has("x-api-key")) request.headers.set("x-api-key", key);
      return request;
    },
  };
}

export function createScribeClient(options: ScribeClientOptions): ScribeClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  if (options.token !== undefined || options.apiKey !== undefined) client.use(credentials(options.token, options.apiKey));
  return client;
}

/** One entry of a 422's `detail` (FastAPI's shape): where the problem is and what it is. */
export type ValidationIssue = Schemas["ValidationError"];

/** A non-2xx answer: its status and the API's `detail` (a sentence, or the 422's list of issues). */
export class ScribeApiError extends Error {
  override readonly name = "ScribeApiError";
  constructor(
    readonly status: number,
    readonly detail: string | ValidationIssue[] | undefined,
    readonly url: string,
  ) {
    super(`${status} from ${url ? new URL(url).pathname : "the API"}: ${describeDetail(detail)}`);
  }

  /** The 422's issues (empty for other errors). */
  get issues(): ValidationIssue[] {
    return Array.isArray(this.detail) ? this.detail : [];
  }
}

function describeDetail(detail: string | ValidationIssue[] | undefined): string {
  if (detail === undefined) return "(no detail)";
  if (typeof detail === "string") return detail;
  return detail.map((issue) => `${issue.loc.join(".")}: ${issue.msg}`).join("; ");
}

function detailOf(error: unknown): string | ValidationIssue[] | undefined {
  if (typeof error === "object" && error !== null && "detail" in error) {
    const detail = (error as { detail: unknown }).detail;
    if (typeof detail === "string" || Array.isArray(detail)) return detail as string | ValidationIssue[];
  }
  return typeof error === "string" && error ? error : undefined;
}

/** The issues of a 422 answer's error body (empty for any other error): `issuesOf(result.error)`. */
export function issuesOf(error: unknown): ValidationIssue[] {
  const detail = detailOf(error);
  return Array.isArray(detail) ? detail : [];
}

/**
 * The data of a successful call, or a `ScribeApiError` thrown for any other answer:
 * `const room = await ok(api.POST("/v1/rooms", { body }))`.
 */
export async function ok<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok) throw new ScribeApiError(response.status, detailOf(error), response.url);
  return data as T;
}
