// `scribe recordings delete-video <recording_id>`: delete a recording's stored video (tracks or
// composed video) through the recordings service, leaving its audio in place.
import { act, examples, type CliCommand } from "../command";
import { INTERNAL_CALLER, recordingsOps } from "@scribe/contracts";
import { BaseConfig, connectBus, loadConfig, rpcCall, type Env } from "@scribe/kit";

export const RECORDINGS_USAGE = "scribe recordings delete-video <recording_id>";

export async function recordingsCommand(env: Env, args: string[], out: (line: string) => void = console.log): Promise<void> {
  const [sub, recordingId] = args;
  if (sub !== "delete-video" || !recordingId) throw new Error(`usage: ${RECORDINGS_USAGE}`);
  const config = loadConfig(BaseConfig, env);
  const bus = await connectBus({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: "scribe-cli" });
  try {
    const result = await rpcCall(
      bus,
      recordingsOps.deleteVideo,
      { caller: INTERNAL_CALLER, recording_id: recordingId },
      { timeoutMs: Math.max(config.RPC_TIMEOUT_MS, 60_000) },
    );
    if (result.deleted.length === 0) out(`recording ${recordingId} has no stored video`);
    for (const d of result.deleted) out(`deleted ${d.bucket}/${d.key}`);
  } finally {
    await bus.close();
  }
}

export const recordingsCli: CliCommand = {
  name: "recordings",
  register(program, ctx) {
    const group = program
      .command("recordings")
      .summary("recordings: delete a recording's stored video, keeping its audio")
      .description("Act on stored recordings through the recordings service (it must be running).");
    const deleteVideo = group
      .command("delete-video")
      .summary("delete a recording's stored video (tracks or composed video), keeping its audio")
      .argument("<recording_id>", "the recording")
      .action(
        act(ctx, async (recordingId: string) => {
          await recordingsCommand(ctx.env, ["delete-video", recordingId], ctx.io.out);
          return 0;
        }),
      );
    examples(deleteVideo, "scribe recordings delete-video 0192f3a4-5b6c-7d8e-9f00-112233445566");
    examples(group, "scribe recordings delete-video <recording_id>");
  },
};
