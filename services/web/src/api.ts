// The one API client of the app: the generated typed client, with the signed-in user's token.
import { createScribeClient, type Schemas } from "@scribe/client";

const TOKEN_KEY = "scribe.token";

export const session = {
  token: (): string | null => localStorage.getItem(TOKEN_KEY),
  signIn(token: string): void {
    localStorage.setItem(TOKEN_KEY, token);
  },
  signOut(): void {
    localStorage.removeItem(TOKEN_KEY);
  },
};

export const api = createScribeClient({ baseUrl: location.origin, token: () => session.token() });

/** The API's `detail` as one sentence, for showing to the user. */
export function describeError(error: unknown): string {
  const detail = (error as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) return detail.map((d: { msg?: string }) => d.msg ?? "invalid").join("; ");
  return "Something went wrong";
}

export type TranscriptStatus = Schemas["SearchResult"]["status"];
