// `scribe up [service...]`: run services in this process until a signal stops them.
import { runMain } from "@scribe/kit";
import { act, examples, type CliCommand } from "../command";
import { useLogFormat } from "../log-format";
import { SERVICES, servicesByName } from "../services";

export const upCli: CliCommand = {
  name: "up",
  register(program, ctx) {
    const cmd = program
      .command("up")
      .summary("run services in this process until SIGTERM (what each container runs)")
      .description(
        `Run the named services (all by default) in this process until SIGINT/SIGTERM, then stop them gracefully. Services: ${SERVICES.map((s) => s.name).join(", ")}. Logs are JSON lines unless LOG_FORMAT=pretty.`,
      )
      .argument("[service...]", "services to run (default: all)")
      .action(
        act(ctx, async (services: string[]) => {
          const defs = servicesByName(services);
          await useLogFormat(ctx.env, "json");
          await runMain(defs, ctx.env);
          return "keep-running";
        }),
      );
    examples(cmd, "scribe up gateway", "scribe up rooms meetings transcription");
  },
};
