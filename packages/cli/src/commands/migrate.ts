// `scribe migrate`: apply every service's pending migrations (what the Kubernetes Job runs first).
import { act, examples, type CliCommand } from "../command";
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
  register(program, ctx) {
    const cmd = program
      .command("migrate")
      .summary("apply every service's pending database migrations")
      .description(
        "Apply every service's pending database migrations to DATABASE_URL (each service has its own schema), then print one line per service. Run it before starting a new version; the Kubernetes chart runs it as a Job.",
      )
      .action(
        act(ctx, async () => {
          await migrateCommand(ctx.env, ctx.io.out);
          return 0;
        }),
      );
    examples(cmd, "DATABASE_URL=postgres://scribe:secret@db:5432/scribe scribe migrate");
  },
};
