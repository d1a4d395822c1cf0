// Parsing ICS feeds off the main thread: node-ical's parse and recurrence expansion are synchronous
// and a large or hostile feed held the event loop (and every request of the process) for seconds.
// Each feed is read in a worker thread with a time budget and a memory cap; past the budget the
// thread is terminated and the sync fails with the reason (the room keeps its previous events).
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { Gauge } from "prom-client";
import { registry } from "@scribe/kit";
import { FeedError, type FeedEvent, type SyncWindow } from "./domain/feed";
import type { ParseJob } from "./feed-parser-thread";

export interface FeedParserSettings {
  ICS_PARSE_TIMEOUT_MS: number;
  ICS_MAX_EVENT_INSTANCES: number;
}

export interface FeedParser {
  parse(feed: string, window: SyncWindow): Promise<FeedEvent[]>;
  /** Feeds being parsed right now (the gauge scribe_ics_parses_in_flight). */
  inFlight(): number;
}

type Answer = { ready: true } | { ok: true; events: FeedEvent[] } | { ok: false; feedError: boolean; message: string };

/**
 * The thread runs the TypeScript sources as the process does (tsx). Node 20 loads a worker's entry
 * before `--import` hooks apply, so a small entry registers tsx first, then loads the parser.
 */
const THREAD_ENTRY = `
  const { register } = await import(${JSON.stringify(
    pathToFileURL(
      createRequire(import.meta.url)
        .resolve("tsx/esm/api")
        .replace(/\.cjs$/, ".mjs"),
    ).href,
  )});
  register();
  await import(${JSON.stringify(new URL("./feed-parser-thread.ts", import.meta.url).href)});
`;
const THREAD_HEAP_MB = 256;

/** Module-level: one metric per process, however many parsers (tests start several systems). */
const parsesInFlight = new Gauge({
  name: "scribe_ics_parses_in_flight",
  help: "ICS feeds being parsed in worker threads",
  registers: [registry],
});

export function createFeedParser(settings: FeedParserSettings): FeedParser {
  let inFlight = 0;

  function parseInThread(feed: string, window: SyncWindow): Promise<FeedEvent[]> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(THREAD_ENTRY)}`), {
        resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
      });
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        void worker.terminate();
        fn();
      };
      worker.on("message", (answer: Answer) => {
        if ("ready" in answer) {
          // The budget counts the reading, not the thread's start-up.
          timer = setTimeout(
            () =>
              settle(() =>
                reject(new FeedError(`Reading the feed took longer than ${settings.ICS_PARSE_TIMEOUT_MS} ms (ICS_PARSE_TIMEOUT_MS)`)),
              ),
            settings.ICS_PARSE_TIMEOUT_MS,
          );
          const job: ParseJob = { feed, window, maxInstances: settings.ICS_MAX_EVENT_INSTANCES };
          worker.postMessage(job);
          return;
        }
        if (answer.ok) settle(() => resolve(answer.events));
        else settle(() => reject(answer.feedError ? new FeedError(answer.message) : new Error(answer.message)));
      });
      worker.on("error", (e) => {
        const tooBig = (e as NodeJS.ErrnoException).code === "ERR_WORKER_OUT_OF_MEMORY";
        settle(() => reject(tooBig ? new FeedError("Reading the feed needs more memory than allowed") : e));
      });
      worker.on("exit", (code) => settle(() => reject(new Error(`feed parser thread exited with code ${code}`))));
    });
  }

  return {
    async parse(feed, window) {
      inFlight++;
      parsesInFlight.inc();
      try {
        return await parseInThread(feed, window);
      } finally {
        inFlight--;
        parsesInFlight.dec();
      }
    },
    inFlight: () => inFlight,
  };
}
