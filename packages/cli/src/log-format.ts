// LOG_FORMAT for the commands that run services: `json` (one object per line, for log collectors)
// or `pretty` (pino-pretty, for a person at a terminal). `scribe dev` defaults to pretty, `up` to json.
import { setLogDestination, type Env } from "@scribe/kit";

export const LOG_FORMATS = ["json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** `output`: where pretty lines go (stdout unless a test collects them). */
export async function useLogFormat(env: Env, fallback: LogFormat, output?: NodeJS.WritableStream): Promise<LogFormat> {
  const given = env.LOG_FORMAT;
  if (given !== undefined && given !== "" && !(LOG_FORMATS as readonly string[]).includes(given))
    throw new Error(`LOG_FORMAT: expected one of ${LOG_FORMATS.join(", ")}, got ${JSON.stringify(given)}`);
  const format = (given || fallback) as LogFormat;
  if (format === "pretty") {
    // Loaded only when asked for; synchronous, so the last lines before an exit are not lost.
    const { default: pretty } = await import("pino-pretty");
    setLogDestination(
      pretty({
        sync: true,
        ...(output ? { destination: output } : {}),
        colorize: Boolean(process.stdout.isTTY),
        translateTime: "SYS:HH:MM:ss.l",
        ignore: "pid,hostname,service",
        messageFormat: "{if service}[{service}] {end}{msg}",
      }),
    );
  } else setLogDestination(undefined);
  return format;
}
