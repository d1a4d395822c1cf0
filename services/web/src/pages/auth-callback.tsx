// /auth/callback: where the identity provider sends the browser back with a code (or an error).
import { useEffect, useState } from "preact/hooks";
import { Link, useLocation } from "wouter-preact";
import { session } from "../api";
import { appConfig } from "../app-config";
import { completeSignIn, SignInError } from "../oidc";

export function AuthCallback() {
  const [, navigate] = useLocation();
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void (async () => {
      try {
        const config = await appConfig();
        if (!config.oidc) throw new SignInError("Sign-in through an identity provider is not configured here.");
        const { token, returnTo } = await completeSignIn(config.oidc, location.search);
        session.signIn(token);
        navigate(returnTo, { replace: true });
      } catch (e) {
        setError(e instanceof SignInError ? e.message : "The sign-in could not be completed. Please try again.");
      }
    })();
  }, []);
  if (!error) return <article aria-busy="true">Signing you in…</article>;
  return (
    <article>
      <h1>Sign-in failed</h1>
      <p role="alert">{error}</p>
      <Link href="/signin">Sign in again</Link>
    </article>
  );
}
