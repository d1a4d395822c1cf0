// The one API client of the app: the generated typed client, with the signed-in user's token.
import { createScribeClient, type Schemas } from "@scribe/client";
import { navigate } from "wouter-preact/use-browser-location";

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

/** Where sign-in sends the user afterwards (`next`), and why they were sent there (`expired`). */
export const SIGN_IN_NEXT = "next";
export const SIGN_IN_EXPIRED = "expired";

/**
 * The API refused the token the app sent (expired, revoked, signed with a rotated key): keeping it
 * would fail every call, so drop it and go to sign-in, which brings the user back here afterwards.
 */
export function sessionExpired(): void {
  session.signOut();
  if (location.pathname === "/signin") return;
  const here = `${location.pathname}${location.search}${location.hash}`;
  navigate(`/signin?${new URLSearchParams({ [SIGN_IN_NEXT]: here, [SIGN_IN_EXPIRED]: "1" }).toString()}`, { replace: true });
}

/** A `next` that stays in this app: a path, never another origin (`//host`, `/\host`, `https:`). */
export function safeNext(next: string | null): string | null {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : null;
}

export const api = createScribeClient({ baseUrl: location.origin, token: () => session.token() });
api.use({
  onResponse({ request, response }) {
    // Only a refusal of the token we sent: a wrong password at sign-in is a 401 too.
    if (response.status === 401 && request.headers.has("authorization")) sessionExpired();
    return response;
  },
});

/** The API's `detail` as one sentence, for showing to the user. */
export function describeError(error: unknown): string {
  const detail = (error as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) return detail.map((d: { msg?: string }) => d.msg ?? "invalid").join("; ");
  return "Something went wrong";
}

export type TranscriptStatus = Schemas["SearchResult"]["status"];
