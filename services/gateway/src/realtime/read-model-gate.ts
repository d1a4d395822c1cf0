// Sockets never run ahead of the read model (docs/ARCHITECTURE.md, "Consistency: read-your-writes"):
// a client that hears STATUS "ended" (or TRANSCRIPT_DELETED) and then reads the transcript must find
// it so. Each relayed entry carries the transcript's version once it was logged; the gate hands it on
// once the read model holds that version — asked once per new version, in order per transcript —
// or after a bounded wait (a read model that is down or far behind delays sockets, never silences them).
import type { Logger } from "@scribe/kit";

/** Waits until the read model holds `version` of the transcript (or gives up); the version it holds then, null: none. */
export type AwaitReadModel = (transcriptId: string, version: number, timeoutMs: number) => Promise<number | null>;

/** How long one entry waits for the read model before it is relayed anyway. */
export const READ_MODEL_WAIT_MS = 2_000;
/** Transcripts whose reached version is remembered (least recently touched forgotten first). */
const REMEMBERED = 10_000;

export class ReadModelGate {
  /** The version the read model is known to hold (or was waited for), by transcript. */
  private readonly reached = new Map<string, number>();
  /** Hand-offs still waiting, by transcript: later ones queue behind them to keep the order. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly awaitReadModel: AwaitReadModel,
    private readonly log: Logger,
    private readonly waitMs = READ_MODEL_WAIT_MS,
  ) {}

  /**
   * Runs `handOff` once the read model holds `version` of the transcript, after every hand-off of the
   * same transcript passed here before it; at once (synchronously) when nothing waits and the version
   * is reached or unknown (entries logged before versions were carried).
   */
  pass(transcriptId: string, version: number | undefined, handOff: () => void): void {
    const queued = this.queues.get(transcriptId);
    if (!queued && !this.mustWait(transcriptId, version)) return handOff();
    const next = (queued ?? Promise.resolve())
      .then(() => this.reach(transcriptId, version))
      .then(handOff)
      .catch((err: unknown) => this.log.error({ err, transcriptId }, "relaying a transcript event failed"))
      .finally(() => {
        if (this.queues.get(transcriptId) === next) this.queues.delete(transcriptId);
      });
    this.queues.set(transcriptId, next);
  }

  /** Resolves once the read model holds `version` (or the wait is over); never rejects. */
  async reach(transcriptId: string, version: number | undefined): Promise<void> {
    if (version === undefined || !this.mustWait(transcriptId, version)) return;
    let held: number | null = null;
    try {
      held = await this.awaitReadModel(transcriptId, version, this.waitMs);
    } catch (err) {
      this.log.warn({ err, transcriptId, version }, "could not ask the read model for a transcript's version; relaying anyway");
    }
    if (held === null || held < version)
      this.log.warn({ transcriptId, version, held }, "the read model is behind the transcript's events; relaying anyway");
    // Waited for once: later entries of this version do not wait again.
    this.remember(transcriptId, Math.max(version, held ?? 0));
  }

  private mustWait(transcriptId: string, version: number | undefined): boolean {
    return version !== undefined && version > (this.reached.get(transcriptId) ?? 0);
  }

  private remember(transcriptId: string, version: number): void {
    const known = this.reached.get(transcriptId) ?? 0;
    this.reached.delete(transcriptId);
    this.reached.set(transcriptId, Math.max(known, version));
    if (this.reached.size > REMEMBERED) this.reached.delete(this.reached.keys().next().value!);
  }
}
