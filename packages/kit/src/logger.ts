// Structured JSON logs (pino); children carry service / request id / event id on every line.
import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

let destination: DestinationStream | undefined;

/**
 * Where the loggers made from now on write; stdout (JSON lines) until set. The CLI sets a pretty
 * printer for `LOG_FORMAT=pretty`: kit stays free of it, so production images do not load it.
 */
export function setLogDestination(stream: DestinationStream | undefined): void {
  destination = stream;
}

/** `service` is set on every line; omit it for a process that hosts several services (they add it). */
export function createLogger(service: string | undefined, level = process.env.LOG_LEVEL ?? "info"): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: service ? { service } : { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: {
      paths: ["*.webhook_secret", "*.password", "*.authorization", "*.api_key", "*.secret"],
      censor: "[redacted]",
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
