// Periodic jobs of a service: a round every interval, never two rounds of one job at once in a
// process, a failing round logged and the next one run anyway; stop() waits for the running round.
import type { Logger } from "pino";

export interface PeriodicJob {
  stop(): Promise<void>;
}

export function runPeriodically(job: string, intervalMs: number, round: () => Promise<unknown>, log: Logger): PeriodicJob {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = round()
      .catch((e: unknown) => log.error({ err: e, job }, "periodic job round failed"))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, intervalMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
