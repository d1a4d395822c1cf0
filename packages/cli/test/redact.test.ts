import { describe, expect, it } from "vitest";
import { redactSecrets, redactSecretsInText } from "../src/redact";

describe("redacting what the CLI prints", () => {
  it("replaces secret fields at any depth and passwords in URLs", () => {
    const out = redactSecrets({
      data: { webhook_secret: "s1", has_webhook_secret: true, ics_url: "https://u:pw@cal.example.com/a.ics", list: [{ password: "p" }] },
    });
    expect(out).toEqual({
      data: {
        webhook_secret: "[redacted]",
        has_webhook_secret: true,
        ics_url: "https://u:[redacted]@cal.example.com/a.ics",
        list: [{ password: "[redacted]" }],
      },
    });
    expect(redactSecrets({ webhook_secret: null })).toEqual({ webhook_secret: null });
  });
  it("redacts dead-letter reasons that quote an event", () => {
    expect(redactSecretsInText('invalid: {"id":"r1","webhook_secret":"s1"} at smtp://me:pw@mail')).toBe(
      'invalid: {"id":"r1","webhook_secret":"[redacted]"} at smtp://me:[redacted]@mail',
    );
  });
});
