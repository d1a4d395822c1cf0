// Backend choice and credentials for speech-to-text, diarization and the LLM, from the environment.
// Names follow the reference where it has them (TRANSCRIPT_*, DIARIZATION_*, LLM_*); every
// default runs offline. The README's table is generated from this schema (envTable).
import { z } from "zod";
import { envInt, loadConfig, type Env } from "@scribe/kit";

const seconds = (def: number, what: string) => envInt(def, 1).describe(what);
const optionalUrl = (what: string) =>
  z
    .string()
    .url()
    .transform((v) => v.replace(/\/+$/, ""))
    .optional()
    .describe(what);
const secret = (what: string) => z.string().optional().describe(what);
const number = (def: number, min: number, max: number, what: string) => z.coerce.number().min(min).max(max).default(def).describe(what);

export const AiConfig = z
  .object({
    TRANSCRIPT_BACKEND: z
      .enum(["pocketsphinx", "openai", "modal"])
      .default("pocketsphinx")
      .describe(
        "`pocketsphinx` (offline, US English), `openai` (any OpenAI-compatible `/v1/audio/transcriptions`), `modal` (the reference's GPU API, self-hosted or Modal)",
      ),
    TRANSCRIPT_URL: optionalUrl("Server root of the `openai` or `modal` backend (requests go to `<url>/v1/audio/…`); required for them"),
    TRANSCRIPT_OPENAI_API_KEY: secret("Bearer key for the `openai` backend"),
    TRANSCRIPT_OPENAI_MODEL: z.string().default("whisper-1").describe("Model name sent to the `openai` backend"),
    TRANSCRIPT_MODAL_API_KEY: secret("Bearer key for the `modal` backend (the service's REFLECTOR_GPU_APIKEY)"),
    TRANSCRIPT_TIMEOUT: seconds(90, "Seconds one uploaded chunk may take (`openai`, and `modal` for local files)"),
    TRANSCRIPT_FILE_TIMEOUT: seconds(540, "Seconds a whole-file `modal` transcription by URL may take"),
    TRANSCRIPT_CHUNK_SECONDS: envInt(600, 10, 1500).describe(
      "Longest audio chunk uploaded at once (16 kHz WAV: 600 s ≈ 19 MB, under OpenAI's 25 MB)",
    ),
    TRANSCRIPT_POCKETSPHINX_MODEL_DIR: z
      .string()
      .default("/usr/share/pocketsphinx/model/en-us")
      .describe("pocketsphinx model directory (Debian `pocketsphinx-en-us`)"),
    TRANSCRIPT_POCKETSPHINX_CHUNK_SECONDS: envInt(120, 10, 3600).describe(
      "Longest chunk one pocketsphinx process decodes; cuts fall in pauses",
    ),
    TRANSCRIPT_POCKETSPHINX_CONCURRENCY: envInt(1, 1, 64).describe("pocketsphinx processes run at once (one core each)"),
    TRANSCRIPT_POCKETSPHINX_LIVE_PAUSE_MS: envInt(300, 100, 5000).describe(
      "Live recordings: silence that ends an utterance of the live recogniser (`-vad_postspeech`); shorter shows words sooner, longer cuts fewer sentences at a hesitation",
    ),
    TRANSCRIPT_POCKETSPHINX_LIVE_VAD_THRESHOLD: number(
      2,
      1,
      10,
      "Live recordings: how much louder than the noise a frame must be to count as speech (`-vad_threshold`); raise it in noisy rooms",
    ),

    DIARIZATION_BACKEND: z
      .enum(["offline", "modal", "none"])
      .default("offline")
      .describe("`offline` (local speaker clustering), `modal` (the reference's GPU API, pyannote), `none` (no diarization)"),
    DIARIZATION_URL: optionalUrl("Server root of the `modal` diarization API; required for it"),
    DIARIZATION_MODAL_API_KEY: secret("Bearer key for the `modal` diarization API"),
    DIARIZATION_FILE_TIMEOUT: seconds(600, "Seconds one `modal` diarization may take"),
    DIARIZATION_OFFLINE_MAX_SPEAKERS: envInt(8, 1, 32).describe("Most speakers the offline diarizer reports"),
    DIARIZATION_OFFLINE_THRESHOLD: number(
      0.3,
      0.01,
      5,
      "Offline diarizer: likelihood ratio per frame above which two voices are different people",
    ),

    LLM_BACKEND: z
      .enum(["auto", "offline", "openai"])
      .default("auto")
      .describe(
        "`offline` (extractive, deterministic, no model), `openai` (any OpenAI-compatible chat endpoint), `auto` (`openai` when LLM_URL is set)",
      ),
    LLM_URL: optionalUrl("API base of the chat endpoint including the version, e.g. `https://api.openai.com/v1`"),
    LLM_API_KEY: secret("Bearer key for the chat endpoint"),
    LLM_MODEL: z.string().default("microsoft/phi-4").describe("Model name sent to the chat endpoint"),
    LLM_TEMPERATURE: number(0.4, 0, 2, "Default sampling temperature (topics use 0.9, titles 0.5)"),
    LLM_CONTEXT_WINDOW: envInt(16000, 1000).describe("Context window in tokens; longer texts are summarised in parts"),
    LLM_REQUEST_TIMEOUT: seconds(300, "Seconds one chat request may take"),
    LLM_PARSE_MAX_RETRIES: envInt(3, 0, 10).describe("Corrective retries after an answer that does not match the schema"),
    LLM_RETRY_ATTEMPTS: envInt(3, 1, 10).describe("Attempts per chat request when the endpoint is down, slow or overloaded"),
    LLM_JSON_MODE: z
      .enum(["json_schema", "json_object", "none"])
      .default("json_schema")
      .describe("How JSON answers are requested (`response_format`); the schema is in the prompt either way"),

    MODEL_HTTP_ATTEMPTS: envInt(3, 1, 10).describe(
      "Attempts per transcription/diarization request when the service is down, slow or overloaded",
    ),
    MODEL_HTTP_BACKOFF_MS: envInt(2000, 0).describe("First wait before a retry, doubled each time (all HTTP backends)"),
    MODEL_HTTP_MAX_BACKOFF_MS: envInt(30000, 0).describe("Longest wait between retries"),
    MIN_TRANSCRIPT_LENGTH: envInt(750, 0).describe("Characters a topic needs before it is summarised (shorter chunks join the next)"),
  })
  .superRefine((c, ctx) => {
    const need = (cond: boolean, key: string, why: string) => {
      if (cond) ctx.addIssue({ code: "custom", path: [key], message: why });
    };
    need(
      c.TRANSCRIPT_BACKEND !== "pocketsphinx" && !c.TRANSCRIPT_URL,
      "TRANSCRIPT_URL",
      `required when TRANSCRIPT_BACKEND=${c.TRANSCRIPT_BACKEND}`,
    );
    need(c.DIARIZATION_BACKEND === "modal" && !c.DIARIZATION_URL, "DIARIZATION_URL", "required when DIARIZATION_BACKEND=modal");
    need(c.LLM_BACKEND === "openai" && !c.LLM_URL, "LLM_URL", "required when LLM_BACKEND=openai");
  });
export type AiConfig = z.infer<typeof AiConfig>;

export function loadAiConfig(env: Env = process.env): AiConfig {
  return loadConfig(AiConfig, env);
}

/** The README table of variables: name, default, meaning (generated so the docs cannot drift). */
export function envTable(): string {
  const rows = Object.entries(AiConfig.shape).map(([name, schema]) => {
    const parsed = schema.safeParse(undefined);
    const def = parsed.success && parsed.data !== undefined ? `\`${String(parsed.data)}\`` : "(unset)";
    return `| \`${name}\` | ${def} | ${schema.description ?? ""} |`;
  });
  return ["| variable | default | meaning |", "|---|---|---|", ...rows].join("\n");
}
