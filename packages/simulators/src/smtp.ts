// A local SMTP server (smtp-server) that keeps every message it accepts, parsed with mailparser,
// and can refuse recipients or fail for a while to exercise retries.
import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface CapturedMail {
  from: string;
  to: string[];
  raw: string;
  parsed: ParsedMail;
}

export interface SmtpCapture {
  host: string;
  port: number;
  mails: CapturedMail[];
  /** Env settings that point the notifier here. */
  env: Record<string, string>;
  /** Refuse these recipients for good (550). */
  rejectRecipients: Set<string>;
  /** The next `count` messages fail with a temporary error (451), then mail flows again. */
  failNext(count: number): void;
  to(address: string): CapturedMail[];
  close(): Promise<void>;
}

export async function startSmtpCapture(from = "scribe@example.com"): Promise<SmtpCapture> {
  const mails: CapturedMail[] = [];
  const rejectRecipients = new Set<string>();
  let failing = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (rejectRecipients.has(address.address.toLowerCase())) {
        return callback(Object.assign(new Error("mailbox unavailable"), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (failing > 0) {
          failing--;
          return callback(Object.assign(new Error("try again later"), { responseCode: 451 }));
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        simpleParser(raw).then(
          (parsed) => {
            const envelopeFrom = session.envelope.mailFrom;
            mails.push({ from: envelopeFrom ? envelopeFrom.address : "", to: session.envelope.rcptTo.map((r) => r.address), raw, parsed });
            callback();
          },
          (e: Error) => callback(e),
        );
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    host: "127.0.0.1",
    port,
    mails,
    env: { SMTP_HOST: "127.0.0.1", SMTP_PORT: String(port), SMTP_FROM_EMAIL: from, SMTP_USE_TLS: "false" },
    rejectRecipients,
    failNext(count) {
      failing = count;
    },
    to: (address) => mails.filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase())),
    close: () => new Promise((r) => server.close(() => r())),
  };
}
