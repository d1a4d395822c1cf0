// Sign-in for the gateway's auth mode: the password form (POST /v1/auth/login), the identity
// provider's login page (authorization code + PKCE), or nothing at all with AUTH_BACKEND=none.
import { useState } from "preact/hooks";
import { Link, useLocation, useSearch } from "wouter-preact";
import { api, describeError, safeNext, session, SIGN_IN_EXPIRED, SIGN_IN_NEXT } from "../api";
import { useAppConfig, type AppConfig } from "../app-config";
import { beginSignIn } from "../oidc";

/** Where to go once signed in: back where the user was sent here from (`?next=`), else the list. */
function useReturnTo(): { returnTo: string; expired: boolean } {
  const params = new URLSearchParams(useSearch());
  return { returnTo: safeNext(params.get(SIGN_IN_NEXT)) ?? "/transcripts", expired: params.has(SIGN_IN_EXPIRED) };
}

/** Why the user is here when the app sent them (their token stopped working). */
function ExpiredNotice({ expired }: { expired: boolean }) {
  if (!expired) return null;
  return (
    <p role="status" class="notice">
      Your session has ended (it expired or was revoked). Sign in again to go on where you were.
    </p>
  );
}

export function SignIn() {
  const config = useAppConfig();
  const { returnTo, expired } = useReturnTo();
  if (!config) return <article aria-busy="true">Loading…</article>;
  if (config.auth_backend === "password") return <PasswordSignIn returnTo={returnTo} expired={expired} />;
  if (config.auth_backend === "jwt") return <ProviderSignIn config={config} returnTo={returnTo} expired={expired} />;
  return (
    <article>
      <h1>No sign-in needed</h1>
      <p>This Scribe needs no account: everyone uses it as a guest.</p>
      <Link href="/transcripts">Go to the transcripts</Link>
    </article>
  );
}

interface Props {
  returnTo: string;
  expired: boolean;
}

function ProviderSignIn({ config, returnTo, expired }: Props & { config: AppConfig }) {
  const [busy, setBusy] = useState(false);
  const oidc = config.oidc;
  return (
    <article>
      <h1>Sign in</h1>
      <ExpiredNotice expired={expired} />
      {oidc ? (
        <button
          aria-busy={busy}
          disabled={busy}
          onClick={() => {
            setBusy(true);
            void beginSignIn(oidc, returnTo);
          }}
        >
          Sign in with {oidc.provider_name}
        </button>
      ) : (
        <p role="alert">
          {config.oidc_unavailable
            ? "The identity provider cannot be reached right now. Please try again in a moment."
            : "This Scribe accepts identity-provider tokens, but no sign-in page is configured (OIDC_ISSUER, OIDC_CLIENT_ID). Use the API with your provider's token."}
        </p>
      )}
    </article>
  );
}

function PasswordSignIn({ returnTo, expired }: Props) {
  const [, navigate] = useLocation();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const { data, error: failure } = await api.POST("/v1/auth/login", { body: { email, password } });
    setBusy(false);
    if (!data) return setError(describeError(failure));
    session.signIn(data.access_token);
    navigate(returnTo, { replace: true });
  }

  return (
    <article>
      <h1>Sign in</h1>
      <ExpiredNotice expired={expired} />
      <form onSubmit={(e) => void submit(e)}>
        <label>
          Email
          <input
            type="email"
            name="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" aria-busy={busy} disabled={busy}>
          Sign in
        </button>
      </form>
    </article>
  );
}
