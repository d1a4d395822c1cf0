// Helpers for tests of the transcription service's jobs: its hooks, driven with the test's clock.
import type { TestSystem } from "./system";

export type ExpireTranscripts = (opts?: { now?: Date }) => Promise<string[] | null>;

export function transcriptionHooks(sys: TestSystem): { expireTranscripts: ExpireTranscripts } {
  // The newest one: a test may have restarted the service.
  const svc = [...sys.process.services].reverse().find((s) => s.name === "transcription");
  if (!svc) throw new Error("the transcription service is not running in this system");
  return { expireTranscripts: svc.exports.expireTranscripts as ExpireTranscripts };
}
