// A small identity provider for tests and the demo: serves a JWKS and OIDC discovery, mints tokens
// with any claims, expiry, key id and algorithm, rotates keys, and can make its JWKS fail. It also
// signs users in as OpenID Connect's authorization-code flow with PKCE (RFC 6749 §4.1, RFC 7636,
// OIDC Core §3.1) lets a browser app do it: /authorize shows a one-field login form, /token checks
// the code, client, redirect_uri and S256 code_verifier before it issues the tokens.
// `pnpm idp` runs it on its own (see idp-main.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHash, randomBytes } from "node:crypto";
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type CryptoKey, type JWK } from "jose";

export type IdpAlgorithm = "RS256" | "PS256" | "ES256";

interface SigningKey {
  kid: string;
  alg: IdpAlgorithm;
  privateKey: CryptoKey;
  publicJwk: JWK;
  publicPem: string;
}

export interface MintOptions {
  /** Seconds from now; negative gives an expired token. Default 3600. */
  expiresIn?: number;
  /** `null` leaves `exp` out. */
  exp?: null;
  /** Default: the simulator's issuer; `null` leaves `iss` out. */
  issuer?: string | null;
  /** Default: the simulator's audience; `null` leaves `aud` out. */
  audience?: string | string[] | null;
  /** Key id in the header; default the current key's. */
  kid?: string;
  /** Sign with a key the JWKS does not publish (under `kid`, default the current key's id). */
  foreignKey?: boolean;
}

export interface IdpSimulator {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  issuer: string;
  audience: string;
  jwksUrl: string;
  /** Key id tokens are signed with now. */
  readonly currentKid: string;
  /** How many times the JWKS was fetched (to see caching and refetches). */
  readonly jwksFetches: number;
  /** When set, the JWKS endpoint answers 503 (an identity-provider outage). */
  failJwks: boolean;
  /** The OAuth2 client the authorization-code flow serves (a public client: PKCE, no secret). */
  clientId: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** The e-mail the login form at /authorize offers; the user's `sub` is derived from the e-mail. */
  defaultLogin: string;
  /** A signed token; claims default to {} (pass sub, email, email_verified, …). */
  token(claims: Record<string, unknown>, opts?: MintOptions): Promise<string>;
  /** A new signing key; the old one stays published unless `dropOld`. Returns the new kid. */
  rotate(opts?: { dropOld?: boolean }): Promise<string>;
  /** PEM (SPKI) public key of the current signing key. */
  publicKeyPem(): string;
  close(): Promise<void>;
}

async function newKey(alg: IdpAlgorithm): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = randomBytes(8).toString("hex");
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  return { kid, alg, privateKey, publicJwk, publicPem: await exportSPKI(publicKey) };
}

/** An authorization code waiting for its exchange at /token (single use, short-lived). */
interface PendingCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  nonce: string | null;
  scope: string;
  email: string;
  expiresAt: number;
}

const CODE_TTL_MS = 60_000;

/** BASE64URL(SHA256(verifier)): PKCE's S256 transform (RFC 7636 §4.2). */
export function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let raw = "";
    req.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
    req.on("end", () => resolve(raw));
    req.on("error", reject);
  });
}

const escapeHtml = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function loginForm(params: URLSearchParams, email: string): string {
  const hidden = [...params.entries()].map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join("");
  return `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Identity provider simulator</title><link rel="icon" href="data:,">
<body style="font-family:sans-serif;max-width:24rem;margin:3rem auto;padding:0 1rem">
<h1>Sign in</h1><p>Identity provider simulator: any e-mail signs in.</p>
<form method="post" action="/authorize">${hidden}
<label>E-mail <input type="email" name="login" value="${escapeHtml(email)}" required></label>
<p><button type="submit">Continue</button></p></form></body></html>`;
}

export async function startIdp(
  opts: { alg?: IdpAlgorithm; audience?: string; port?: number; host?: string; clientId?: string; defaultLogin?: string } = {},
): Promise<IdpSimulator> {
  const alg = opts.alg ?? "RS256";
  let keys: SigningKey[] = [await newKey(alg)];
  // Made once: key generation is slow, and one unpublished key is all a forgery test needs.
  let foreign: SigningKey | null = null;
  let fetches = 0;
  const current = () => keys[keys.length - 1]!;
  const state = { failJwks: false };
  const codes = new Map<string, PendingCode>();

  /** An OAuth2 error (RFC 6749 §5.2) as JSON. */
  const oauthError = (res: ServerResponse, status: number, error: string, description: string) => {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", "access-control-allow-origin": "*" });
    res.end(JSON.stringify({ error, error_description: description }));
  };

  /** Checks an authorization request; the problem as text, or null when it may proceed. */
  const authorizeProblem = (p: URLSearchParams): string | null => {
    if (p.get("response_type") !== "code") return "response_type must be code";
    if (p.get("client_id") !== sim.clientId) return "unknown client_id";
    const redirect = p.get("redirect_uri");
    if (!redirect || !URL.canParse(redirect)) return "redirect_uri must be an absolute URL";
    if (!p.get("code_challenge")) return "code_challenge is required (PKCE)";
    if (p.get("code_challenge_method") !== "S256") return "code_challenge_method must be S256";
    return null;
  };

  const authorize = async (req: IncomingMessage, res: ServerResponse, query: URLSearchParams) => {
    const params = req.method === "POST" ? new URLSearchParams(await readBody(req)) : query;
    const problem = authorizeProblem(params);
    // Without a trustworthy redirect_uri the error is shown here, never sent on (RFC 6749 §4.1.2.1).
    if (problem) return oauthError(res, 400, "invalid_request", problem);
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(loginForm(params, sim.defaultLogin));
    }
    const login = params.get("login")?.trim() ?? "";
    const back = new URL(params.get("redirect_uri")!);
    const stateParam = params.get("state");
    if (stateParam !== null) back.searchParams.set("state", stateParam);
    if (!login.includes("@")) {
      back.searchParams.set("error", "access_denied");
    } else {
      const code = randomBytes(24).toString("base64url");
      codes.set(code, {
        clientId: params.get("client_id")!,
        redirectUri: params.get("redirect_uri")!,
        codeChallenge: params.get("code_challenge")!,
        nonce: params.get("nonce"),
        scope: params.get("scope") ?? "openid",
        email: login,
        expiresAt: Date.now() + CODE_TTL_MS,
      });
      back.searchParams.set("code", code);
    }
    res.writeHead(302, { location: back.toString() });
    res.end();
  };

  /** The authorization-code grant (RFC 6749 §4.1.3) with PKCE verification (RFC 7636 §4.6). */
  const exchangeCode = async (form: URLSearchParams, res: ServerResponse) => {
    if (form.get("grant_type") !== "authorization_code")
      return oauthError(res, 400, "unsupported_grant_type", "grant_type must be authorization_code");
    const code = form.get("code") ?? "";
    const pending = codes.get(code);
    // Single use: a code that was tried once is gone, whatever the outcome.
    codes.delete(code);
    if (!pending || pending.expiresAt < Date.now()) return oauthError(res, 400, "invalid_grant", "unknown or expired code");
    if (form.get("client_id") !== pending.clientId) return oauthError(res, 400, "invalid_grant", "client_id does not match the code");
    if (form.get("redirect_uri") !== pending.redirectUri)
      return oauthError(res, 400, "invalid_grant", "redirect_uri does not match the code");
    const verifier = form.get("code_verifier") ?? "";
    if (!VERIFIER.test(verifier)) return oauthError(res, 400, "invalid_request", "code_verifier must be 43-128 unreserved characters");
    if (pkceChallenge(verifier) !== pending.codeChallenge)
      return oauthError(res, 400, "invalid_grant", "code_verifier does not match the code_challenge");
    const user = { sub: `idp|${pending.email}`, email: pending.email, email_verified: true };
    const accessToken = await sim.token(user);
    const idToken = await sim.token({ ...user, ...(pending.nonce ? { nonce: pending.nonce } : {}) }, { audience: pending.clientId });
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store", "access-control-allow-origin": "*" });
    res.end(JSON.stringify({ access_token: accessToken, id_token: idToken, token_type: "Bearer", expires_in: 3600, scope: pending.scope }));
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const path = url.pathname;
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json", "access-control-allow-origin": "*" });
      res.end(JSON.stringify(body));
    };
    const failed = (e: unknown) => {
      if (!res.headersSent) send(500, { error: "server_error", error_description: (e as Error).message });
    };
    // A browser app calls discovery and /token from its own origin (CORS preflight for anything non-simple).
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "GET, POST",
        "access-control-allow-headers": "content-type, authorization",
      });
      return res.end();
    }
    if (path === "/authorize" && (req.method === "GET" || req.method === "POST")) {
      authorize(req, res, url.searchParams).catch(failed);
      return;
    }
    if (req.method === "GET" && path === "/jwks") {
      fetches++;
      if (state.failJwks) return send(503, { error: "unavailable" });
      return send(200, { keys: keys.map((k) => k.publicJwk) });
    }
    if (req.method === "GET" && path === "/.well-known/openid-configuration") {
      return send(200, {
        issuer: sim.issuer,
        authorization_endpoint: sim.authorizationEndpoint,
        token_endpoint: sim.tokenEndpoint,
        jwks_uri: sim.jwksUrl,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code"],
        subject_types_supported: ["public"],
        scopes_supported: ["openid", "email", "profile"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        id_token_signing_alg_values_supported: [alg],
      });
    }
    if (req.method === "POST" && path === "/token") {
      readBody(req)
        .then((raw) => {
          // Demo convenience: a JSON body of claims, {"sub": "...", "email": "...", ...} → {"access_token": "..."}.
          if (raw.trimStart().startsWith("{") || raw.trim() === "") {
            let claims: Record<string, unknown>;
            try {
              claims = JSON.parse(raw || "{}") as Record<string, unknown>;
            } catch {
              return send(400, { error: "body must be JSON claims" });
            }
            return sim.token(claims).then((t) => send(200, { access_token: t, token_type: "bearer" }));
          }
          return exchangeCode(new URLSearchParams(raw), res);
        })
        .catch(failed);
      return;
    }
    send(404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve));
  const url = `http://${opts.host ?? "127.0.0.1"}:${(server.address() as AddressInfo).port}`;

  const sim: IdpSimulator = {
    url,
    issuer: url,
    audience: opts.audience ?? "scribe-test-client",
    jwksUrl: `${url}/jwks`,
    clientId: opts.clientId ?? "scribe-web",
    authorizationEndpoint: `${url}/authorize`,
    tokenEndpoint: `${url}/token`,
    defaultLogin: opts.defaultLogin ?? "alice@example.com",
    get currentKid() {
      return current().kid;
    },
    get jwksFetches() {
      return fetches;
    },
    get failJwks() {
      return state.failJwks;
    },
    set failJwks(v: boolean) {
      state.failJwks = v;
    },
    async token(claims, o = {}) {
      const key = o.foreignKey ? (foreign ??= await newKey(alg)) : current();
      const jwt = new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: o.kid ?? current().kid, typ: "JWT" }).setIssuedAt();
      const issuer = o.issuer === undefined ? sim.issuer : o.issuer;
      const audience = o.audience === undefined ? sim.audience : o.audience;
      if (issuer !== null) jwt.setIssuer(issuer);
      if (audience !== null) jwt.setAudience(audience);
      if (o.exp !== null) jwt.setExpirationTime(Math.floor(Date.now() / 1000) + (o.expiresIn ?? 3600));
      return jwt.sign(key.privateKey);
    },
    async rotate(o = {}) {
      const next = await newKey(alg);
      keys = o.dropOld ? [next] : [...keys, next];
      return next.kid;
    },
    publicKeyPem: () => current().publicPem,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return sim;
}

/** `alg: none` — what an attacker sends hoping the verifier skips the signature. */
export function unsignedToken(claims: Record<string, unknown>): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  return `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`;
}

/**
 * HS256 keyed with the provider's *public* key text: the classic algorithm-confusion forgery against
 * verifiers that let the token pick the algorithm.
 */
export async function forgedWithPublicKey(publicKeyPem: string, claims: Record<string, unknown>, kid?: string): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT", ...(kid ? { kid } : {}) })
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(publicKeyPem));
}
