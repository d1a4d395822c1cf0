// Password sign-in (AUTH_BACKEND=password): POST /v1/auth/login, keep the token, go to the list.
import { useState } from "preact/hooks";
import { useLocation } from "wouter-preact";
import { api, describeError, session } from "../api";

export function SignIn() {
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
    navigate("/transcripts");
  }

  return (
    <article>
      <h1>Sign in</h1>
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
