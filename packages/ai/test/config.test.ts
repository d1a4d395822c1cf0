import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError } from "@scribe/kit";
import { createBackends, envTable, loadAiConfig } from "../src/index";

describe("model backend configuration", () => {
  it("runs everything offline when nothing is set", () => {
    const ai = createBackends(loadAiConfig({}));
    expect(ai.stt.name).toBe("pocketsphinx");
    expect(ai.diarizer?.name).toBe("offline");
    expect(ai.llm).toBeNull();
    expect(ai.summariser.name).toBe("extractive");
  });

  it("uses the LLM as soon as LLM_URL is set", () => {
    const ai = createBackends(loadAiConfig({ LLM_URL: "http://127.0.0.1:8000/v1", LLM_API_KEY: "k" }));
    expect(ai.llm?.name).toBe("openai");
    expect(ai.summariser.name).toBe("llm");
  });

  it("selects the reference GPU API and the OpenAI-compatible backends by the reference's names", () => {
    const gpu = createBackends(
      loadAiConfig({
        TRANSCRIPT_BACKEND: "modal",
        TRANSCRIPT_URL: "http://gpu:8000/",
        DIARIZATION_BACKEND: "modal",
        DIARIZATION_URL: "http://gpu:8000",
      }),
    );
    expect(gpu.stt.name).toBe("modal");
    expect(gpu.diarizer?.name).toBe("modal");
    expect(createBackends(loadAiConfig({ TRANSCRIPT_BACKEND: "openai", TRANSCRIPT_URL: "https://api.openai.com" })).stt.name).toBe(
      "openai",
    );
    expect(createBackends(loadAiConfig({ DIARIZATION_BACKEND: "none" })).diarizer).toBeNull();
  });

  it("refuses an HTTP backend without its URL, naming every missing variable", () => {
    let error: ConfigError | undefined;
    try {
      loadAiConfig({
        TRANSCRIPT_BACKEND: "modal",
        DIARIZATION_BACKEND: "modal",
        LLM_BACKEND: "openai",
        TRANSCRIPT_MODAL_API_KEY: "secret-value",
      });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems.map((p) => p.split(":")[0])).toEqual(["TRANSCRIPT_URL", "DIARIZATION_URL", "LLM_URL"]);
    expect(error!.message).not.toContain("secret-value");
  });

  it("documents every variable with its default in the package README", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(readme).toContain(envTable());
  });
});
