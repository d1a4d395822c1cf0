// GET /v1/transcripts/{id} through the real gateway and projection (auth, request/reply over NATS,
// access check, the cached document) next to a bare Hono + postgres.js server answering the same
// row with its topics (the baseline, bare-transcript-server.ts), in the same run (issue 20):
// closed-loop throughput of a 10-minute transcript (goal ≥ 0.8x bare), latency at a fixed offered
// rate for a 1-minute one (goal p99 ≤ 15 ms at 500 req/s), and revalidation (If-None-Match → 304).
// The gateway, the projection and the bare server each run in a process of their own, as deployed;
// this process only sends the requests, so its own work and garbage do not stall their answers.
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { killServiceProcess } from "../test/support/service-process";
import { killReplica, startReplica, untilReady, type Replica } from "../test/support/service-replicas";
import { startSystem } from "../test/support/system";
import { meetingWords, topicRecord, TranscriptWriter } from "../test/support/transcripts";
import { formatNumber, percentile, report } from "./report";
import { stealWindow } from "./steal";

const SECONDS = Number(process.env.BENCH_READS_SECONDS ?? 8);
const CONCURRENCY = Number(process.env.BENCH_READS_CONCURRENCY ?? 32);
const OFFERED = Number(process.env.BENCH_READS_RATE ?? 500);

type Headers = Record<string, string>;

/** As many requests as `concurrency` loops get answered in `seconds`; every answer must have `status`. */
async function throughput(pool: Pool, path: string, headers: Headers, status: number, seconds = SECONDS): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let answered = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const res = await pool.request({ path, method: "GET", headers });
        await res.body.dump({ limit: Infinity });
        if (res.statusCode !== status) throw new Error(`GET ${path}: ${res.statusCode}, expected ${status}`);
        answered++;
      }
    }),
  );
  return answered / seconds;
}

/**
 * Requests sent on a fixed schedule (`rate` a second, whatever the answers do) for `seconds`;
 * latency counts from the scheduled moment, so a stalled server shows in it (no coordinated omission).
 * Answers still missing `seconds` after the last send count with their wait so far (a lower bound).
 */
async function atRate(
  pool: Pool,
  path: string,
  headers: Headers,
  rate: number,
  seconds = SECONDS,
): Promise<{ p50: number; p99: number; unanswered: number; loopMaxMs: number; gcPauses: number[]; stolen: string }> {
  // This process times the answers: what stalls its event loop delays them too.
  const loop = monitorEventLoopDelay({ resolution: 1 });
  const gcPauses: number[] = [];
  const gc = new PerformanceObserver((list) => gcPauses.push(...list.getEntries().map((e) => e.duration)));
  loop.enable();
  gc.observe({ entryTypes: ["gc"] });
  const steal = stealWindow();
  const latencies: number[] = [];
  const pending = new Set<number>();
  const sent: Promise<void>[] = [];
  const start = performance.now();
  const total = Math.round(rate * seconds);
  for (let i = 0; i < total;) {
    const now = performance.now();
    for (; i < total && start + (i * 1000) / rate <= now; i++) {
      const scheduled = start + (i * 1000) / rate;
      pending.add(scheduled);
      sent.push(
        pool.request({ path, method: "GET", headers }).then(async (res) => {
          await res.body.dump({ limit: Infinity });
          if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
          latencies.push(performance.now() - scheduled);
          pending.delete(scheduled);
        }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const all = Promise.all(sent);
  all.catch(() => {});
  const cutoff = new Promise<"cut">((resolve) => setTimeout(() => resolve("cut"), seconds * 1000));
  await Promise.race([all, cutoff]);
  const at = performance.now();
  loop.disable();
  gc.disconnect();
  const stolen = steal.stolen();
  const waits = [...latencies, ...[...pending].map((scheduled) => at - scheduled)].sort((a, b) => a - b);
  return {
    p50: percentile(waits, 50),
    p99: percentile(waits, 99),
    unanswered: pending.size,
    loopMaxMs: loop.max / 1e6,
    gcPauses,
    stolen,
  };
}

/** The baseline (bare-transcript-server.ts) in a process of its own. */
async function bareServer(databaseUrl: string): Promise<{ origin: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("bare-transcript-server.ts", import.meta.url))], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`bare server exited with ${code}`))));
  const port = await Promise.race([createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next(), exited]);
  return { origin: `http://127.0.0.1:${String(port.value).trim()}`, close: () => killServiceProcess(child) };
}

/** The gateway's count of transcript reads answered within each bucket of its duration histogram (ms; Infinity: all). */
async function gatewayDurations(gateway: Replica): Promise<Map<number, number>> {
  const text = await (await fetch(`http://127.0.0.1:${gateway.opsPort}/metrics`)).text();
  const counts = new Map<number, number>();
  for (const m of text.matchAll(
    /^scribe_http_request_duration_seconds_bucket\{le="([^"]+)",method="GET",route="\/v1\/transcripts\/:transcript_id"\} (\d+)$/gm,
  ))
    counts.set(m[1] === "+Inf" ? Infinity : Math.round(Number(m[1]) * 1000), Number(m[2]));
  return counts;
}

/** The services in processes of their own (`scribe up <service>`), on the system's database and bus prefix. */
async function serviceProcesses(env: Record<string, string>, logDir: string): Promise<{ gateway: Replica; all: Replica[] }> {
  const all = await Promise.all(
    ["projection", "gateway"].map((name) => startReplica({ name, services: [name], env: { ...env, LOG_LEVEL: "warn" }, logDir })),
  );
  await Promise.all(all.map((r) => untilReady(r, 60_000)));
  return { gateway: all.find((r) => r.name === "gateway")!, all };
}

export default async function bench(): Promise<void> {
  // The system's database, bus prefix and credentials; its services run as processes below.
  const sys = await startSystem({ label: "benchreads", services: "none" });
  const logDir = await mkdtemp(join(tmpdir(), "scribe-bench-reads-"));
  const services = await serviceProcesses(sys.env, logDir);
  const tw = await TranscriptWriter.connect(sys.prefix);
  const bare = await bareServer(sys.db.url);
  const scribe = new Pool(`http://127.0.0.1:${services.gateway.port}`, { connections: CONCURRENCY });
  const baseline = new Pool(bare.origin, { connections: CONCURRENCY });
  try {
    async function transcriptOf(minutes: number): Promise<string> {
      const t = await tw.create({ user_id: "alice", title: `${minutes}-minute meeting`, duration: minutes * 60_000, status: "ended" });
      for (const [position, words] of meetingWords(minutes).entries())
        await tw.upsertTopic(t.id, position, topicRecord(words, { title: `Minute ${position + 1}` }));
      await tw.applied(t.id, 30_000);
      return t.id;
    }
    const auth = { authorization: `Bearer ${await sys.token("alice")}` };
    const ten = `/v1/transcripts/${await transcriptOf(10)}`;
    const one = `/v1/transcripts/${await transcriptOf(1)}`;
    // The words as JSON, as the bare server sends them (its row's topics); the default format is plain text.
    const tenJson = `${ten}?transcript_format=json`;
    const sizeOf = async (pool: Pool, path: string, headers: Headers) =>
      formatNumber((await (await pool.request({ path, method: "GET", headers })).body.text()).length / 1024);
    console.log(
      `10-minute transcript: ${await sizeOf(scribe, ten, auth)} KB (text), ${await sizeOf(scribe, tenJson, auth)} KB (json) through Scribe, ${await sizeOf(baseline, ten, {})} KB bare`,
    );
    const etag = (await scribe.request({ path: ten, method: "GET", headers: auth })).headers.etag as string;

    // Warm both (JIT, connection pools, the document cache).
    await throughput(scribe, ten, auth, 200, 2);
    await throughput(baseline, ten, {}, 200, 2);

    const bareRate = await throughput(baseline, ten, {}, 200);
    const bareLine = { name: "bare Hono + postgres.js, 10-minute transcript", value: bareRate, unit: "req/s", label: "bare" };
    report(bareLine);
    report(
      {
        name: `GET /v1/transcripts/{id}, 10-minute transcript (${CONCURRENCY} concurrent)`,
        value: await throughput(scribe, ten, auth, 200),
        unit: "req/s",
      },
      bareLine,
    );
    report(
      {
        name: "GET /v1/transcripts/{id}?transcript_format=json, 10-minute transcript",
        value: await throughput(scribe, tenJson, auth, 200),
        unit: "req/s",
      },
      bareLine,
    );
    report(
      {
        name: "GET /v1/transcripts/{id} with If-None-Match (304)",
        value: await throughput(scribe, ten, { ...auth, "if-none-match": etag }, 304),
        unit: "req/s",
      },
      bareLine,
    );

    const bareLatency = await atRate(baseline, one, {}, OFFERED);
    const gatewayBefore = await gatewayDurations(services.gateway);
    const latency = await atRate(scribe, one, auth, OFFERED);
    const gatewayAfter = await gatewayDurations(services.gateway);
    const bareP99 = { name: "bare p99", value: bareLatency.p99, unit: "ms", label: "bare p99" };
    console.log(
      `bare, 1-minute transcript at ${OFFERED} req/s offered: p50 ${formatNumber(bareLatency.p50)} ms, p99 ${formatNumber(bareLatency.p99)} ms, ${bareLatency.unanswered} unanswered`,
    );
    console.log(`Scribe at ${OFFERED} req/s offered: ${latency.unanswered} unanswered ${SECONDS} s after the last request`);
    for (const [who, run] of [
      ["bare", bareLatency],
      ["Scribe", latency],
    ] as const)
      console.log(
        `  while ${who} was timed: the load generator's event loop stalled ${formatNumber(run.loopMaxMs)} ms at most; ${run.gcPauses.length} GC pauses, ${formatNumber(run.gcPauses.reduce((a, b) => a + b, 0))} ms in all, the longest ${formatNumber(Math.max(0, ...run.gcPauses))} ms; CPU time stolen by the hypervisor: ${run.stolen}`,
      );
    const within = (ms: number) => (gatewayAfter.get(ms) ?? 0) - (gatewayBefore.get(ms) ?? 0);
    console.log(
      `  inside the gateway (its request-duration histogram): ${within(5)} answered within 5 ms, ${within(10)} within 10 ms, ${within(25)} within 25 ms, of ${within(Infinity)}`,
    );
    report({ name: `GET /v1/transcripts/{id}, 1-minute transcript at ${OFFERED} req/s offered, p50`, value: latency.p50, unit: "ms" });
    report(
      { name: `GET /v1/transcripts/{id}, 1-minute transcript at ${OFFERED} req/s offered, p99`, value: latency.p99, unit: "ms" },
      bareP99,
    );
    console.log(
      `goal (issue 20): ≥ 0.8x bare throughput; p99 ≤ 15 ms at ${OFFERED} req/s for a 1-minute transcript; 304 for unchanged reads`,
    );
  } finally {
    // destroy: a cut-off latency run may leave requests in flight.
    await scribe.destroy();
    await baseline.destroy();
    await bare.close();
    await tw.close();
    await Promise.all(services.all.map(killReplica));
    await sys.stop();
    await rm(logDir, { recursive: true, force: true });
  }
}
