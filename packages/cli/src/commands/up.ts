// `scribe up [service...]`: run services in this process until a signal stops them.
import { runMain } from "@scribe/kit";
import type { CliCommand } from "../command";
import { SERVICES, servicesByName } from "../services";

export const upCli: CliCommand = {
  name: "up",
  usage: `up [service...]      run services in this process (all by default: ${SERVICES.map((s) => s.name).join(", ")})`,
  async run(args, env) {
    await runMain(servicesByName(args), env);
    return "keep-running";
  },
};
