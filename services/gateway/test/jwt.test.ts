// The identity provider's key from AUTH_JWT_PUBLIC_KEY: PEM text, a one-line PEM with `\n`
// escapes (env files), a file path, or a certificate.
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadPublicKey } from "../src/auth/jwt";

const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" }).toString();

describe("loading the identity provider's public key", () => {
  it("reads PEM text", () => {
    expect(loadPublicKey(pem).asymmetricKeyType).toBe("rsa");
  });

  it("reads a one-line PEM whose newlines are written as \\n", () => {
    expect(loadPublicKey(pem.trim().replace(/\n/g, "\\n")).type).toBe("public");
  });

  it("reads a PEM file by path", () => {
    const file = join(mkdtempSync(join(tmpdir(), "scribe-key-")), "idp.pem");
    writeFileSync(file, pem);
    expect(loadPublicKey(file).type).toBe("public");
  });

  it("takes the public key out of a certificate (what many providers publish)", () => {
    const cert = fileURLToPath(new URL("./fixtures/idp-certificate.pem", import.meta.url));
    expect(loadPublicKey(cert)).toMatchObject({ type: "public", asymmetricKeyType: "rsa" });
  });

  it("throws for a missing file or text that is no key (start-up turns it into a config error)", () => {
    expect(() => loadPublicKey("/no/such/key.pem")).toThrow();
    expect(() => loadPublicKey("-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----")).toThrow();
  });
});
