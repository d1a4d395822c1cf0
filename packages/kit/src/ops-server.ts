// Liveness, readiness and metrics over plain HTTP for the process (probes and Prometheus).
import { createServer, type Server } from "node:http";
import { asyncListener } from "./http/async-listener";
import { registry } from "./metrics";

export interface ReadinessSource {
  name: string;
  /** Resolves with the problems found (empty when ready). */
  readiness(): Promise<string[]>;
}

export class OpsServer {
  private server: Server | null = null;
  private sources: ReadinessSource[] = [];
  private shuttingDown = false;

  add(source: ReadinessSource): void {
    this.sources.push(source);
  }
  markShuttingDown(): void {
    this.shuttingDown = true;
  }

  async readiness(): Promise<{ ready: boolean; problems: string[] }> {
    if (this.shuttingDown) return { ready: false, problems: ["shutting down"] };
    const problems = (
      await Promise.all(this.sources.map(async (s) => (await s.readiness().catch((e: Error) => [e.message])).map((p) => `${s.name}: ${p}`)))
    ).flat();
    return { ready: problems.length === 0, problems };
  }

  async listen(port: number, host = "0.0.0.0"): Promise<number> {
    this.server = createServer(
      asyncListener(async (req, res) => {
        const path = (req.url ?? "/").split("?")[0];
        if (path === "/livez" || path === "/health") {
          res.writeHead(200, { "content-type": "application/json" }).end('{"status":"alive"}');
        } else if (path === "/readyz") {
          const r = await this.readiness();
          res.writeHead(r.ready ? 200 : 503, { "content-type": "application/json" }).end(JSON.stringify(r));
        } else if (path === "/metrics") {
          res.writeHead(200, { "content-type": registry.contentType }).end(await registry.metrics());
        } else {
          res.writeHead(404).end();
        }
      }),
    );
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", reject);
      this.server!.listen(port, host, () => resolve());
    });
    const addr = this.server.address();
    return typeof addr === "object" && addr ? addr.port : port;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
