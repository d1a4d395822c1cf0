// Builds the configured backends (config.ts) behind the small interfaces the pipelines use.
import type { Logger } from "@scribe/kit";
import type { AiConfig } from "./config";
import type { RetryPolicy } from "./http";
import type { Diarizer, Llm, SpeechToText, Summariser } from "./types";
import { PocketsphinxStt } from "./stt/pocketsphinx";
import { OpenAiStt } from "./stt/openai";
import { GpuApiStt } from "./stt/gpu";
import { OfflineDiarizer } from "./diarization/offline";
import { GpuApiDiarizer } from "./diarization/gpu";
import { OpenAiLlm } from "./llm/openai";
import { LlmSummariser } from "./summary/llm-summariser";
import { ExtractiveSummariser } from "./summary/extractive";

export interface AiBackends {
  stt: SpeechToText;
  /** Null when DIARIZATION_BACKEND=none. */
  diarizer: Diarizer | null;
  /** Null when the LLM backend is offline: the summariser then needs no model. */
  llm: Llm | null;
  summariser: Summariser;
}

const modelRetry = (c: AiConfig): RetryPolicy => ({
  attempts: c.MODEL_HTTP_ATTEMPTS,
  backoffMs: c.MODEL_HTTP_BACKOFF_MS,
  maxBackoffMs: c.MODEL_HTTP_MAX_BACKOFF_MS,
});
const withLogger = (logger?: Logger) => (logger ? { logger } : {});
const withKey = (apiKey?: string) => (apiKey ? { apiKey } : {});

export function createSpeechToText(c: AiConfig, logger?: Logger): SpeechToText {
  const log = logger?.child({ component: "stt", backend: c.TRANSCRIPT_BACKEND });
  switch (c.TRANSCRIPT_BACKEND) {
    case "pocketsphinx":
      return new PocketsphinxStt({
        modelDir: c.TRANSCRIPT_POCKETSPHINX_MODEL_DIR,
        chunkSeconds: c.TRANSCRIPT_POCKETSPHINX_CHUNK_SECONDS,
        concurrency: c.TRANSCRIPT_POCKETSPHINX_CONCURRENCY,
        livePauseMs: c.TRANSCRIPT_POCKETSPHINX_LIVE_PAUSE_MS,
        liveVadThreshold: c.TRANSCRIPT_POCKETSPHINX_LIVE_VAD_THRESHOLD,
        ...withLogger(log),
      });
    case "openai":
      return new OpenAiStt({
        baseUrl: c.TRANSCRIPT_URL!,
        ...withKey(c.TRANSCRIPT_OPENAI_API_KEY),
        model: c.TRANSCRIPT_OPENAI_MODEL,
        timeoutMs: c.TRANSCRIPT_TIMEOUT * 1000,
        retry: modelRetry(c),
        chunkSeconds: c.TRANSCRIPT_CHUNK_SECONDS,
        ...withLogger(log),
      });
    case "modal":
      return new GpuApiStt({
        baseUrl: c.TRANSCRIPT_URL!,
        ...withKey(c.TRANSCRIPT_MODAL_API_KEY),
        model: "whisper-1",
        // By URL the service transcribes the whole file in one request; uploads go chunk by chunk.
        fileTimeoutMs: c.TRANSCRIPT_FILE_TIMEOUT * 1000,
        timeoutMs: c.TRANSCRIPT_TIMEOUT * 1000,
        retry: modelRetry(c),
        chunkSeconds: c.TRANSCRIPT_CHUNK_SECONDS,
        ...withLogger(log),
      });
  }
}

export function createDiarizer(c: AiConfig, logger?: Logger): Diarizer | null {
  const log = logger?.child({ component: "diarization", backend: c.DIARIZATION_BACKEND });
  switch (c.DIARIZATION_BACKEND) {
    case "none":
      return null;
    case "offline":
      return new OfflineDiarizer({
        maxSpeakers: c.DIARIZATION_OFFLINE_MAX_SPEAKERS,
        threshold: c.DIARIZATION_OFFLINE_THRESHOLD,
        ...withLogger(log),
      });
    case "modal":
      return new GpuApiDiarizer({
        baseUrl: c.DIARIZATION_URL!,
        ...withKey(c.DIARIZATION_MODAL_API_KEY),
        timeoutMs: c.DIARIZATION_FILE_TIMEOUT * 1000,
        retry: modelRetry(c),
        ...withLogger(log),
      });
  }
}

export function llmBackend(c: AiConfig): "offline" | "openai" {
  return c.LLM_BACKEND === "auto" ? (c.LLM_URL ? "openai" : "offline") : c.LLM_BACKEND;
}

export function createLlm(c: AiConfig, logger?: Logger): Llm | null {
  if (llmBackend(c) === "offline") return null;
  return new OpenAiLlm({
    baseUrl: c.LLM_URL!,
    ...withKey(c.LLM_API_KEY),
    model: c.LLM_MODEL,
    temperature: c.LLM_TEMPERATURE,
    timeoutMs: c.LLM_REQUEST_TIMEOUT * 1000,
    retry: { attempts: c.LLM_RETRY_ATTEMPTS, backoffMs: c.MODEL_HTTP_BACKOFF_MS, maxBackoffMs: c.MODEL_HTTP_MAX_BACKOFF_MS },
    parseRetries: c.LLM_PARSE_MAX_RETRIES,
    contextWindow: c.LLM_CONTEXT_WINDOW,
    jsonMode: c.LLM_JSON_MODE,
    ...withLogger(logger?.child({ component: "llm" })),
  });
}

export function createBackends(c: AiConfig, logger?: Logger): AiBackends {
  const llm = createLlm(c, logger);
  const log = logger?.child({ component: "summary" });
  return {
    stt: createSpeechToText(c, logger),
    diarizer: createDiarizer(c, logger),
    llm,
    summariser: llm ? new LlmSummariser(llm, log) : new ExtractiveSummariser(log),
  };
}
