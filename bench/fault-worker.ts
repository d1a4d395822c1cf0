// A worker process of the workflow fault bench (killed with SIGKILL by it). Prints "ready" once pulling.
import { connectBus, connectDb, createLogger } from "@scribe/kit";
import { WorkflowWorker } from "@scribe/workflow";
import { faultWorkload } from "./fault-workload";

const env = process.env;
const sql = connectDb(env.DATABASE_URL!, { schema: env.BENCH_SCHEMA!, max: 4 });
const bus = await connectBus({ url: env.NATS_URL!, prefix: env.NATS_PREFIX!, name: "bench-fault-worker" });
const worker = new WorkflowWorker({
  sql,
  bus,
  log: createLogger("bench-worker", env.LOG_LEVEL ?? "silent"),
  workflows: [faultWorkload],
  ackWaitMs: env.BENCH_ACK_WAIT_MS ? Number(env.BENCH_ACK_WAIT_MS) : undefined,
  workerId: env.BENCH_WORKER_ID,
});
await worker.start();
process.stdout.write("ready\n");
