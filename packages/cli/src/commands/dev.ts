// `scribe dev [service...]`: the development stack in one process: the Daily and Whereby simulators on
// fixed local ports, every service (like `scribe up`) pointed at them, password sign-in with a dev
// admin, local storage. `deploy/dev-up.sh` runs it; `scribe demo` plays a meeting against it.
import { randomBytes } from "node:crypto";
import { StorageConfig, loadConfig, startProcess, type Env, type RunningProcess } from "@scribe/kit";
import type { DailySimulator, WherebySimulator } from "@scribe/simulators";
import { act, examples, type CliCommand, type CliContext, type ExitCode } from "../command";
import { useLogFormat } from "../log-format";
import { servicesByName } from "../services";

/** What `scribe dev` uses unless the environment says otherwise (and `scribe demo` assumes). */
export const DEV_DEFAULTS = {
  PORT: 1250,
  DEV_DAILY_PORT: 1251,
  DEV_WHEREBY_PORT: 1252,
  ADMIN_EMAIL: "admin@example.com",
  ADMIN_PASSWORD: "scribe-dev",
  DAILY_API_KEY: "scribe-dev-daily-key",
  WHEREBY_API_KEY: "scribe-dev-whereby-key",
  // Fixed so that a restarted stack still accepts webhooks signed by a simulator that kept running.
  DAILY_WEBHOOK_SECRET: Buffer.from("scribe-dev-daily-webhook-secret!").toString("base64"),
  WHEREBY_WEBHOOK_SECRET: "scribe-dev-whereby-webhook-secret",
} as const;

export interface DevStack {
  process: RunningProcess;
  daily: DailySimulator;
  whereby: WherebySimulator;
  /** The environment the services were started with. */
  env: Record<string, string>;
  /** http://127.0.0.1:<gateway port>, or "" when the gateway is not among the services. */
  apiUrl: string;
  /** The dev admin's login, when the stack made it (null: the environment chose the auth). */
  admin: { email: string; password: string } | null;
  /** What runs where, for the terminal. */
  banner(): string;
  stop(): Promise<void>;
}

function port(env: Env, name: "DEV_DAILY_PORT" | "DEV_WHEREBY_PORT"): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return DEV_DEFAULTS[name];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`${name}: expected a port number (0 = any free port), got ${JSON.stringify(raw)}`);
  return n;
}

async function listening<T>(what: string, envName: string, p: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EADDRINUSE")
      throw new Error(`${what}: port ${p} is in use (${envName} picks another)`, { cause: e });
    throw e;
  }
}

/** Start the simulators and the services; `env` is the caller's environment (defaults fill the rest). */
export async function startDevStack(env: Env, services: string[] = []): Promise<DevStack> {
  const defs = servicesByName(services);
  // Loaded lazily: production images run `scribe up` and never need the simulators.
  const { startDailySimulator } = await import("@scribe/simulators");
  const { startWherebySimulator } = await import("@scribe/simulators");
  const { platformEnv } = await import("@scribe/simulators");
  const given = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ""));
  const auth = given.AUTH_BACKEND ?? "password";
  const makesAdmin = auth === "password" && !given.ADMIN_EMAIL && !given.ADMIN_PASSWORD_HASH && !given.ADMIN_PASSWORD;
  const admin = makesAdmin ? { email: DEV_DEFAULTS.ADMIN_EMAIL, password: DEV_DEFAULTS.ADMIN_PASSWORD } : null;
  const storageEnv = { TRANSCRIPT_STORAGE_BACKEND: "local", ...given };
  const storage = loadConfig(StorageConfig, storageEnv);

  const dailyPort = port(env, "DEV_DAILY_PORT");
  const wherebyPort = port(env, "DEV_WHEREBY_PORT");
  const daily = await listening("Daily simulator", "DEV_DAILY_PORT", dailyPort, () =>
    startDailySimulator({ storage, port: dailyPort, apiKey: DEV_DEFAULTS.DAILY_API_KEY, webhookSecret: DEV_DEFAULTS.DAILY_WEBHOOK_SECRET }),
  );
  let whereby: WherebySimulator;
  try {
    whereby = await listening("Whereby simulator", "DEV_WHEREBY_PORT", wherebyPort, () =>
      startWherebySimulator({
        storage,
        port: wherebyPort,
        apiKey: DEV_DEFAULTS.WHEREBY_API_KEY,
        webhookSecret: DEV_DEFAULTS.WHEREBY_WEBHOOK_SECRET,
      }),
    );
  } catch (e) {
    await daily.close();
    throw e;
  }

  const devEnv: Record<string, string> = {
    ALLOW_PRIVATE_URLS: "true",
    // Outside `scribe dev` a placeholder key stops the gateway; here a fresh one per start will do
    // (sign in again after a restart).
    SECRET_KEY: randomBytes(32).toString("hex"),
    ...storageEnv,
    AUTH_BACKEND: auth,
    // The gateway's own address, so links (UI_BASE_URL follows BASE_URL) open the app it serves.
    ...(!given.BASE_URL && given.PORT !== "0" ? { BASE_URL: `http://127.0.0.1:${given.PORT ?? DEV_DEFAULTS.PORT}` } : {}),
    ...(admin ? { ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password } : {}),
    // The platforms are the simulators, whatever the environment says about the real ones.
    ...platformEnv(daily, whereby),
  };
  let running: RunningProcess;
  try {
    running = await startProcess(defs, devEnv);
  } catch (e) {
    await daily.close();
    await whereby.close();
    throw e;
  }
  const gateway = running.services.find((s) => s.name === "gateway");
  const apiUrl = gateway ? `http://127.0.0.1:${gateway.exports.port as number}` : "";
  if (apiUrl) {
    daily.setWebhookUrl(`${apiUrl}/v1/daily/webhook`);
    whereby.setWebhookUrl(`${apiUrl}/v1/whereby`);
  }

  const banner = () => {
    const row = (k: string, v: string) => `  ${k.padEnd(13)}${v}`;
    const signIn =
      admin !== null
        ? `${admin.email} / ${admin.password}   (POST /v1/auth/login)`
        : auth === "password"
          ? `${devEnv.ADMIN_EMAIL ?? "(ADMIN_EMAIL)"} with the password you set   (POST /v1/auth/login)`
          : `AUTH_BACKEND=${auth}`;
    return [
      "Scribe dev stack is up",
      row("API", apiUrl ? `${apiUrl}   (/docs, /openapi.json, /health)` : "(gateway not started)"),
      ...(apiUrl ? [row("web app", `${apiUrl}/`)] : []),
      row("ops", running.opsPort ? `http://127.0.0.1:${running.opsPort}/livez|readyz|metrics` : "(off)"),
      row("sign in", signIn),
      row("Daily sim", `${daily.url}   control API ${daily.controlUrl}   (bearer ${daily.apiKey})`),
      row("Whereby sim", whereby.url),
      row(
        "storage",
        `${storage.TRANSCRIPT_STORAGE_BACKEND} ${storage.TRANSCRIPT_STORAGE_BACKEND === "local" ? storage.STORAGE_LOCAL_ROOT : storage.TRANSCRIPT_STORAGE_AWS_ENDPOINT_URL}`,
      ),
      row("services", running.services.map((s) => s.name).join(", ")),
      "",
      "Play a meeting and get its transcript:   pnpm scribe demo",
    ].join("\n");
  };

  let stopping: Promise<void> | null = null;
  return {
    process: running,
    daily,
    whereby,
    env: devEnv,
    apiUrl,
    admin,
    banner,
    stop() {
      stopping ??= (async () => {
        await running.stop();
        await daily.close();
        await whereby.close();
      })();
      return stopping;
    },
  };
}

export const devCli: CliCommand = {
  name: "dev",
  register(program, ctx) {
    const cmd = program
      .command("dev")
      .summary("development stack: every service plus the Daily/Whereby simulators, in one process")
      .description(
        `Start the Daily and Whereby simulators (DEV_DAILY_PORT ${DEV_DEFAULTS.DEV_DAILY_PORT}, DEV_WHEREBY_PORT ${DEV_DEFAULTS.DEV_WHEREBY_PORT}) and the named services (all by default) pointed at them, with password sign-in as ${DEV_DEFAULTS.ADMIN_EMAIL} / ${DEV_DEFAULTS.ADMIN_PASSWORD} and local storage; runs until SIGINT/SIGTERM. Logs are human-readable unless LOG_FORMAT=json.`,
      )
      .argument("[service...]", "services to run (default: all)")
      .action(act(ctx, (services: string[]) => runDev(ctx, services)));
    examples(cmd, "scribe dev", "LOG_FORMAT=json scribe dev rooms gateway");
  },
};

async function runDev(ctx: CliContext, services: string[]): Promise<ExitCode> {
  const env = ctx.env;
  servicesByName(services);
  await useLogFormat(env, "pretty");
  const stack = await startDevStack(env, services);
  ctx.io.out(stack.banner());
  const shutdown = () => {
    const timer = setTimeout(() => process.exit(1), 15_000);
    timer.unref();
    stack.stop().then(
      () => process.exit(0),
      (e) => {
        console.error(`scribe dev: shutdown failed: ${(e as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
  return "keep-running";
}
