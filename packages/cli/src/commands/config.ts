// `scribe config`: the configuration table of every service, generated from their zod schemas.
import type { CliCommand } from "../command";
import { BaseConfig, describeConfig, type ConfigDoc } from "@scribe/kit";
import { SERVICES } from "../services";

export function configTable(): string {
  const rows = new Map<string, ConfigDoc & { services: string[] }>();
  const add = (docs: ConfigDoc[], service: string) => {
    for (const d of docs) {
      const row = rows.get(d.name);
      if (row) row.services.push(service);
      else rows.set(d.name, { ...d, services: [service] });
    }
  };
  add(describeConfig(BaseConfig), "all");
  for (const s of SERVICES) if (s.config) add(describeConfig(s.config), s.name);
  const esc = (v: string) => v.replace(/\|/g, "\\|");
  const lines = ["| variable | default | used by | meaning |", "|---|---|---|---|"];
  for (const r of rows.values()) {
    lines.push(`| \`${r.name}\` | \`${esc(r.default)}\` | ${r.services.join(", ")} | ${esc(r.description)} |`);
  }
  return lines.join("\n");
}

export const configCli: CliCommand = {
  name: "config",
  usage: "config               the configuration table (markdown) of every service",
  async run() {
    console.log(configTable());
    return 0;
  },
};
