// Sending transcript e-mails over SMTP (nodemailer): the content comes from the read model through
// `projection.get`, which also decides whether the asker may read the transcript.
import { projectionOps, type Caller, type GetTranscript } from "@scribe/contracts";
import { isAppError, rpcCall, Unavailable, type Bus } from "@scribe/kit";
import nodemailer from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport";
import { z } from "zod";
import { renderEmail, type RenderedEmail, type TranscriptEmailContent } from "../domain/email";
import type { Verdict } from "../domain/retry";
import { transcriptUrl } from "../domain/webhook";
import type { DeliveryRow } from "../store";
import { excerpt, type AttemptResult } from "./types";

export interface SmtpSettings {
  SMTP_HOST: string;
  SMTP_PORT: number;
  SMTP_USERNAME: string;
  SMTP_PASSWORD: string;
  SMTP_FROM_EMAIL: string;
  SMTP_USE_TLS: boolean;
  SMTP_TIMEOUT_MS: number;
}

export interface OutgoingEmail extends RenderedEmail {
  to: string;
}

/** Sends one message; throws MailError. */
export interface Mailer {
  send(msg: OutgoingEmail): Promise<{ response: string }>;
  close(): void;
}

export class MailError extends Error {
  constructor(
    message: string,
    /** The SMTP reply code, when the server refused (5xx: for good). */
    readonly responseCode: number | null,
  ) {
    super(message);
    this.name = "MailError";
  }
  get verdict(): Verdict {
    return this.responseCode !== null && this.responseCode >= 500 ? "permanent" : "retryable";
  }
}

export function smtpMailer(s: SmtpSettings): Mailer {
  const options: SMTPTransport.Options = {
    host: s.SMTP_HOST,
    port: s.SMTP_PORT,
    // Port 465 speaks TLS from the start; elsewhere SMTP_USE_TLS requires STARTTLS (reference),
    // and without it the session stays plain even if the server offers STARTTLS.
    secure: s.SMTP_PORT === 465,
    requireTLS: s.SMTP_PORT !== 465 && s.SMTP_USE_TLS,
    ignoreTLS: s.SMTP_PORT !== 465 && !s.SMTP_USE_TLS,
    auth: s.SMTP_USERNAME ? { user: s.SMTP_USERNAME, pass: s.SMTP_PASSWORD } : undefined,
    connectionTimeout: s.SMTP_TIMEOUT_MS,
    greetingTimeout: s.SMTP_TIMEOUT_MS,
    socketTimeout: s.SMTP_TIMEOUT_MS,
    dnsTimeout: s.SMTP_TIMEOUT_MS,
  };
  const transport = nodemailer.createTransport(options);
  return {
    async send(msg) {
      try {
        const info = await transport.sendMail({
          from: s.SMTP_FROM_EMAIL,
          to: msg.to,
          subject: msg.subject,
          text: msg.text,
          html: msg.html,
        });
        return { response: info.response };
      } catch (e) {
        const err = e as Error & { responseCode?: number; response?: string; code?: string };
        const detail = err.response ?? (err.code ? `${err.code}: ${err.message}` : err.message);
        throw new MailError(detail, typeof err.responseCode === "number" ? err.responseCode : null);
      }
    },
    close: () => transport.close(),
  };
}

/** What an automatic e-mail delivery keeps: enough to read the transcript as its owner. */
export const EmailPayload = z.object({ transcript_version: z.number().int(), owner_user_id: z.string().nullable() });
export const EmailTarget = z.object({ to: z.string(), include_link: z.boolean() });

export function emailContent(t: GetTranscript, uiBaseUrl: string, includeLink: boolean): TranscriptEmailContent {
  return {
    title: t.title,
    shortSummary: t.short_summary,
    timestampedText: typeof t.transcript === "string" ? t.transcript : "",
    url: includeLink ? transcriptUrl(uiBaseUrl, t.id) : null,
  };
}

export class EmailSender {
  constructor(
    private readonly mailer: Mailer,
    private readonly bus: Bus,
    private readonly settings: { UI_BASE_URL: string; RPC_TIMEOUT_MS: number },
  ) {}

  /** The transcript as `caller` may read it (READ of the read model), timestamped text included. */
  read(caller: Caller, transcriptId: string): Promise<GetTranscript> {
    return rpcCall(
      this.bus,
      projectionOps.get,
      { caller, id: transcriptId, transcript_format: "text-timestamped" },
      { timeoutMs: this.settings.RPC_TIMEOUT_MS },
    );
  }

  send(to: string, content: TranscriptEmailContent): Promise<{ response: string }> {
    return this.mailer.send({ to, ...renderEmail(content) });
  }

  /**
   * One attempt of an e-mail after processing: wait until the read model holds the completed
   * version, read it as its owner, send.
   */
  async attempt(d: DeliveryRow): Promise<AttemptResult> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    const payload = EmailPayload.parse(d.payload);
    const target = EmailTarget.parse(d.target);
    const caller: Caller = { userId: payload.owner_user_id, email: null, via: "internal" };
    let transcript: GetTranscript;
    try {
      const reached = await rpcCall(
        this.bus,
        projectionOps.awaitVersion,
        { caller, id: d.transcript_id, version: payload.transcript_version, timeout_ms: 5000 },
        { timeoutMs: this.settings.RPC_TIMEOUT_MS },
      );
      if (!reached.reached) throw Unavailable("the read model does not hold the completed transcript yet");
      transcript = await this.read(caller, d.transcript_id);
    } catch (e) {
      if (isAppError(e) && e.kind === "not_found")
        return {
          verdict: "cancel",
          statusCode: null,
          error: "the transcript no longer exists",
          excerpt: null,
          durationMs: took(),
          eventId: null,
        };
      return {
        verdict: "retryable",
        statusCode: null,
        error: `reading the transcript: ${(e as Error).message}`,
        excerpt: null,
        durationMs: took(),
        eventId: null,
      };
    }
    try {
      const info = await this.send(target.to, emailContent(transcript, this.settings.UI_BASE_URL, target.include_link));
      return { verdict: "delivered", statusCode: null, error: null, excerpt: excerpt(info.response), durationMs: took(), eventId: null };
    } catch (e) {
      const err = e instanceof MailError ? e : new MailError(String(e), null);
      return { verdict: err.verdict, statusCode: err.responseCode, error: err.message, excerpt: null, durationMs: took(), eventId: null };
    }
  }
}
