// Structured JSON logs (pino); children carry service / request id / event id on every line.
import { pino, type Logger } from "pino";

export type { Logger };

/** `service` is set on every line; omit it for a process that hosts several services (they add it). */
export function createLogger(service: string | undefined, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    base: service ? { service } : { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: {
      paths: ["*.webhook_secret", "*.password", "*.authorization", "*.api_key", "*.secret"],
      censor: "[redacted]",
    },
  });
}
