// Worker thread of the feed parser (feed-parser.ts): reads one feed per message with parseFeed and
// answers the events, or the reason the feed cannot be used.
import { parentPort } from "node:worker_threads";
import { FeedError, parseFeed, type SyncWindow } from "./domain/feed";

export interface ParseJob {
  feed: string;
  window: SyncWindow;
  maxInstances: number;
}

const port = parentPort;
if (!port) throw new Error("feed-parser-thread runs as a worker thread only");
port.on("message", (job: ParseJob) => {
  try {
    port.postMessage({ ok: true, events: parseFeed(job.feed, job.window, { maxInstances: job.maxInstances }) });
  } catch (e) {
    port.postMessage({ ok: false, feedError: e instanceof FeedError, message: e instanceof Error ? e.message : String(e) });
  }
});
port.postMessage({ ready: true });
