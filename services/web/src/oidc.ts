// Sign-in through the identity provider: OAuth 2.0 authorization code with PKCE (RFC 7636, S256),
// as a public client in the browser. The verifier, state and nonce live in sessionStorage for the
// round trip only; the callback checks the state before it exchanges the code.
import type { AppConfig } from "./app-config";

const PENDING_KEY = "scribe.oidc.pending";

interface Pending {
  state: string;
  verifier: string;
  nonce: string;
  redirectUri: string;
  /** Where the user was going when they signed in. */
  returnTo: string;
}

/** `bytes` random bytes as base64url (43 characters for 32 bytes: a valid PKCE verifier). */
function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** BASE64URL(SHA-256(verifier)). */
export async function pkceChallenge(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

export const callbackPath = "/auth/callback";

/** Sends the browser to the provider's login page. */
export async function beginSignIn(oidc: NonNullable<AppConfig["oidc"]>, returnTo: string): Promise<void> {
  const pending: Pending = {
    state: randomToken(16),
    verifier: randomToken(32),
    nonce: randomToken(16),
    redirectUri: `${location.origin}${callbackPath}`,
    returnTo,
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(oidc.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: oidc.client_id,
    redirect_uri: pending.redirectUri,
    scope: oidc.scope,
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await pkceChallenge(pending.verifier),
    code_challenge_method: "S256",
  }).toString();
  location.assign(url.toString());
}

export class SignInError extends Error {}

/**
 * Finishes the round trip on /auth/callback: the state must be the one this tab sent (else the
 * answer is someone else's), then the code and verifier buy the tokens. Returns the access token
 * and where to go next.
 */
export async function completeSignIn(oidc: NonNullable<AppConfig["oidc"]>, search: string): Promise<{ token: string; returnTo: string }> {
  const params = new URLSearchParams(search);
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const pending = raw ? (JSON.parse(raw) as Pending) : null;
  if (!pending || params.get("state") !== pending.state) {
    throw new SignInError("This sign-in answer does not belong to a sign-in started here. Please sign in again.");
  }
  const refused = params.get("error");
  if (refused) throw new SignInError(`The identity provider refused the sign-in (${params.get("error_description") ?? refused}).`);
  const code = params.get("code");
  if (!code) throw new SignInError("The identity provider sent no authorization code.");
  const res = await fetch(oidc.token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: pending.redirectUri,
      client_id: oidc.client_id,
      code_verifier: pending.verifier,
    }),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; error?: string; error_description?: string };
  if (!res.ok || !body.access_token) {
    throw new SignInError(
      `The identity provider did not complete the sign-in: ${body.error_description ?? body.error ?? `HTTP ${res.status}`}.`,
    );
  }
  return { token: body.access_token, returnTo: pending.returnTo };
}
