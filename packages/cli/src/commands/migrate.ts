// `scribe migrate`: apply every service's pending migrations (what the Kubernetes Job runs first).
import type { CliCommand } from "../command";
import { BaseConfig, connectDb, loadConfig, migrate, serviceMigrations, type Env } from "@scribe/kit";
import { SERVICES } from "../services";

export async function migrateCommand(env: Env, out: (line: string) => void = console.log): Promise<void> {
  const config = loadConfig(BaseConfig, env);
  for (const service of SERVICES) {
    const sql = connectDb(config.DATABASE_URL, { schema: service.name, max: 1 });
    try {
      const applied = await migrate(sql, {
        schema: service.name,
        migrations: serviceMigrations(service.name, { shared: service.sharedMigrations }),
      });
      out(`${service.name}: ${applied.length ? `applied ${applied.join(", ")}` : "up to date"}`);
    } finally {
      await sql.end({ timeout: 5 });
    }
  }
}

export const migrateCli: CliCommand = {
  name: "migrate",
  usage: "migrate              apply every service's pending database migrations",
  async run(_args, env) {
    await migrateCommand(env);
    return 0;
  },
};
