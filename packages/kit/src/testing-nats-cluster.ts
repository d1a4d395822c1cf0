// A real three-node NATS cluster with JetStream for tests (nats-server processes on free ports,
// their JetStream data in a temporary folder), where a node can be killed (SIGKILL, as a lost
// machine) and started again with its data.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface NatsClusterNode {
  name: string;
  /** `nats://127.0.0.1:<port>` of this node alone. */
  url: string;
  /** `http://127.0.0.1:<port>` of its monitoring endpoints (`/jsz`: its own copies of the streams). */
  monitorUrl: string;
  running: boolean;
}

export interface TestNatsCluster {
  nodes: NatsClusterNode[];
  /** Every node's client URL, comma-separated: NATS_URL for services. */
  url: string;
  /** The node called `name` (`n1`, `n2`, `n3`). */
  node(name: string): NatsClusterNode;
  /** The running nodes that hold a client connection called `connectionName` (the bus's `name`). */
  nodesServing(connectionName: string): Promise<string[]>;
  /** SIGKILL the node and wait for its process to exit. */
  kill(name: string): Promise<void>;
  /** Start a killed node again on its ports and data; resolves when it reports JetStream healthy. */
  restart(name: string): Promise<void>;
  stop(): Promise<void>;
}

interface NodeState extends NatsClusterNode {
  clientPort: number;
  routePort: number;
  monitorPort: number;
  storeDir: string;
  child: ChildProcess | null;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Until the node's /healthz says JetStream is up (a meta leader is known and its streams are current). */
async function untilHealthy(node: NodeState, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last = "";
  while (performance.now() < deadline) {
    if (!node.child || node.child.exitCode !== null) throw new Error(`nats-server ${node.name} exited at start`);
    try {
      const res = await fetch(`${node.monitorUrl}/healthz`);
      if (res.ok) return;
      last = await res.text();
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nats-server ${node.name} not healthy within ${timeoutMs} ms: ${last}`);
}

export async function startTestNatsCluster(opts: { size?: number; healthyWithinMs?: number } = {}): Promise<TestNatsCluster> {
  const size = opts.size ?? 3;
  const healthyWithinMs = opts.healthyWithinMs ?? 60_000;
  const directory = mkdtempSync(join(tmpdir(), "scribe-nats-cluster-"));
  const clusterName = `scribe-test-${process.pid}`;
  const nodes: NodeState[] = [];
  for (let i = 1; i <= size; i++) {
    nodes.push({
      name: `n${i}`,
      clientPort: await freePort(),
      routePort: await freePort(),
      monitorPort: await freePort(),
      storeDir: join(directory, `n${i}`),
      url: "",
      monitorUrl: "",
      running: false,
      child: null,
    });
  }
  for (const n of nodes) {
    n.url = `nats://127.0.0.1:${n.clientPort}`;
    n.monitorUrl = `http://127.0.0.1:${n.monitorPort}`;
  }
  const routes = nodes.map((n) => `nats://127.0.0.1:${n.routePort}`).join(",");

  const launch = (n: NodeState) => {
    n.child = spawn(
      "nats-server",
      [
        "-a",
        "127.0.0.1",
        "-p",
        String(n.clientPort),
        "-m",
        String(n.monitorPort),
        "-n",
        n.name,
        "-js",
        "-sd",
        n.storeDir,
        "--cluster_name",
        clusterName,
        "--cluster",
        `nats://127.0.0.1:${n.routePort}`,
        "--routes",
        routes,
      ],
      { stdio: ["ignore", "ignore", "ignore"] },
    );
    n.running = true;
    n.child.once("exit", () => (n.running = false));
  };
  const byName = (name: string) => {
    const n = nodes.find((x) => x.name === name);
    if (!n) throw new Error(`no NATS node ${name}`);
    return n;
  };
  const kill = async (n: NodeState) => {
    const child = n.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  };

  nodes.forEach(launch);
  try {
    await Promise.all(nodes.map((n) => untilHealthy(n, healthyWithinMs)));
  } catch (e) {
    await Promise.all(nodes.map(kill));
    rmSync(directory, { recursive: true, force: true });
    throw e;
  }
  return {
    nodes,
    url: nodes.map((n) => n.url).join(","),
    node: byName,
    async nodesServing(connectionName) {
      const serving = await Promise.all(
        nodes
          .filter((n) => n.running)
          .map(async (n) => {
            const res = await fetch(`${n.monitorUrl}/connz?limit=10000`);
            const { connections = [] } = (await res.json()) as { connections?: { name?: string }[] };
            return connections.some((c) => c.name === connectionName) ? [n.name] : [];
          }),
      );
      return serving.flat();
    },
    kill: (name) => kill(byName(name)),
    async restart(name) {
      const n = byName(name);
      await kill(n);
      launch(n);
      await untilHealthy(n, healthyWithinMs);
    },
    async stop() {
      await Promise.all(nodes.map(kill));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
