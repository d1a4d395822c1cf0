// A small identity provider for tests and the demo: serves a JWKS (and OIDC discovery), mints tokens
// with any claims, expiry, key id and algorithm, rotates keys, and can make its JWKS fail.
// `pnpm idp` runs it on its own (see idp-main.ts).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
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

export async function startIdp(opts: { alg?: IdpAlgorithm; audience?: string; port?: number; host?: string } = {}): Promise<IdpSimulator> {
  const alg = opts.alg ?? "RS256";
  let keys: SigningKey[] = [await newKey(alg)];
  // Made once: key generation is slow, and one unpublished key is all a forgery test needs.
  let foreign: SigningKey | null = null;
  let fetches = 0;
  const current = () => keys[keys.length - 1]!;
  const state = { failJwks: false };

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && path === "/jwks") {
      fetches++;
      if (state.failJwks) return send(503, { error: "unavailable" });
      return send(200, { keys: keys.map((k) => k.publicJwk) });
    }
    if (req.method === "GET" && path === "/.well-known/openid-configuration") {
      return send(200, { issuer: sim.issuer, jwks_uri: sim.jwksUrl, id_token_signing_alg_values_supported: [alg] });
    }
    // Demo convenience: POST /token {"sub": "...", "email": "...", ...} → {"access_token": "..."}.
    if (req.method === "POST" && path === "/token") {
      let raw = "";
      req.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
      req.on("end", () => {
        let claims: Record<string, unknown>;
        try {
          claims = JSON.parse(raw || "{}") as Record<string, unknown>;
        } catch {
          return send(400, { error: "body must be JSON claims" });
        }
        sim.token(claims).then(
          (t) => send(200, { access_token: t, token_type: "bearer" }),
          (e: Error) => send(500, { error: e.message }),
        );
      });
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
