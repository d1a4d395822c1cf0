// `scribe config`: the configuration table of every service, generated from their zod schemas.
import { act, examples, jsonOption, type CliCommand } from "../command";
import { BaseConfig, describeConfig, type ConfigDoc } from "@scribe/kit";
import { SERVICES } from "../services";

type ConfigRow = ConfigDoc & { services: string[] };

/** Every variable once, with the services that read it. */
export function configRows(): ConfigRow[] {
  const rows = new Map<string, ConfigRow>();
  const add = (docs: ConfigDoc[], service: string) => {
    for (const d of docs) {
      const row = rows.get(d.name);
      if (row) row.services.push(service);
      else rows.set(d.name, { ...d, services: [service] });
    }
  };
  add(describeConfig(BaseConfig), "all");
  for (const s of SERVICES) if (s.config) add(describeConfig(s.config), s.name);
  return [...rows.values()];
}

export function configTable(): string {
  const esc = (v: string) => v.replace(/\|/g, "\\|");
  const lines = ["| variable | default | used by | meaning |", "|---|---|---|---|"];
  for (const r of configRows()) {
    lines.push(`| \`${r.name}\` | \`${esc(r.default)}\` | ${r.services.join(", ")} | ${esc(r.description)} |`);
  }
  return lines.join("\n");
}

export const configCli: CliCommand = {
  name: "config",
  register(program, ctx) {
    const cmd = program
      .command("config")
      .summary("the configuration table of every service (markdown, or JSON)")
      .description("Print every environment variable the services read: its default, the services that use it and what it means.")
      .addOption(jsonOption())
      .action(
        act(ctx, async (opts: { json?: boolean }) => {
          ctx.io.out(opts.json ? JSON.stringify(configRows(), null, 2) : configTable());
          return 0;
        }),
      );
    examples(cmd, "scribe config", "scribe config --json | jq -r '.[].name'");
  },
};
