// Opens the bus as configured by the environment, for CLI commands.
import { BaseConfig, connectBus, loadConfig, type Bus, type Env } from "@scribe/kit";

export async function withBus<T>(env: Env, fn: (bus: Bus) => Promise<T>): Promise<T> {
  const config = loadConfig(BaseConfig, env);
  const bus = await connectBus({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: "scribe-cli" });
  try {
    return await fn(bus);
  } finally {
    await bus.close();
  }
}
