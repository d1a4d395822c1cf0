// `pnpm idp [port]`: runs the identity-provider simulator for a demo of AUTH_BACKEND=jwt and prints
// the gateway settings that trust it, and a curl line that gets a token.
import { startIdp } from "./idp";

const port = Number(process.argv[2] ?? process.env.IDP_PORT ?? 9999);
const idp = await startIdp({ port, audience: process.env.IDP_AUDIENCE ?? "scribe" });
console.log(`identity-provider simulator on ${idp.url} (JWKS ${idp.jwksUrl})

Start Scribe against it:
  AUTH_BACKEND=jwt AUTH_JWT_JWKS_URL=${idp.jwksUrl} AUTH_JWT_ISSUER=${idp.issuer} AUTH_JWT_AUDIENCE=${idp.audience} \\
    OIDC_ISSUER=${idp.issuer} OIDC_CLIENT_ID=${idp.clientId} bash deploy/dev-up.sh
(the web app's "Sign in with …" then goes through ${idp.authorizationEndpoint}: any e-mail signs in)

Get a token (any sub / email / email_verified):
  curl -s -X POST ${idp.url}/token -d '{"sub":"alice","email":"alice@example.com","email_verified":true}'
`);
const stop = () => void idp.close().then(() => process.exit(0));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
