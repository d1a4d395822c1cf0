// LLM backend for any OpenAI-compatible chat endpoint (`/chat/completions`): JSON answers asked
// for with a JSON schema, validated with zod, and corrected by feeding the errors back; plain-text
// answers summarised in parts when the texts exceed the context window (behaviour §8.6).
import { z } from "zod";
import { AppError } from "@scribe/kit";
import type { Logger } from "@scribe/kit";
import { bearer, joinUrl, requestJson, type RetryPolicy } from "../http";
import type { Llm, LlmCallOptions } from "../types";

export type JsonMode = "json_schema" | "json_object" | "none";

export interface OpenAiLlmOptions {
  /** API base including the version, e.g. `https://api.openai.com/v1` (as the reference's LLM_URL). */
  baseUrl: string;
  apiKey?: string;
  model: string;
  temperature: number;
  /** Deadline of one request, ms. */
  timeoutMs: number;
  /** Network retries (connection refused, timeouts, 5xx, 429). */
  retry: RetryPolicy;
  /** Corrective retries after a malformed answer; attempts = parseRetries + 1. */
  parseRetries: number;
  /** Context window in tokens; texts beyond it are summarised in parts. */
  contextWindow: number;
  /** How the schema is requested; servers without structured output still get it in the prompt. */
  jsonMode: JsonMode;
  logger?: Logger;
}

/** A model kept answering with something that does not match the schema: not worth retrying. */
export class LlmParseError extends AppError {
  constructor(
    detail: string,
    readonly lastAnswer: string,
  ) {
    super("invalid", detail);
  }
}

const ChatCompletion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullish(), refusal: z.string().nullish() }) })).min(1),
});

type Message = { role: "system" | "user" | "assistant"; content: string };

/** Rough characters per token for budgeting; conservative for English. */
const CHARS_PER_TOKEN = 3;

export class OpenAiLlm implements Llm {
  readonly name = "openai";
  constructor(private readonly opts: OpenAiLlmOptions) {}

  async completeJson<S extends z.ZodType>(prompt: string, schema: S, opts: LlmCallOptions = {}): Promise<z.infer<S>> {
    // The input side of the schema is what the model has to write (before defaults and transforms).
    const jsonSchema = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    delete jsonSchema.$schema;
    const instruction = `${prompt}\n\nAnswer with a single JSON object matching this JSON schema, and nothing else:\n${JSON.stringify(jsonSchema)}`;
    const responseFormat =
      this.opts.jsonMode === "json_schema"
        ? { type: "json_schema", json_schema: { name: "answer", schema: jsonSchema, strict: false } }
        : this.opts.jsonMode === "json_object"
          ? { type: "json_object" }
          : undefined;
    let content = instruction;
    let lastAnswer = "";
    let lastProblem = "";
    const attempts = this.opts.parseRetries + 1;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      lastAnswer = await this.chat([{ role: "user", content }], opts, responseFormat);
      const problem = checkAnswer(lastAnswer, schema);
      if (problem.ok) return problem.value;
      lastProblem = problem.error;
      this.opts.logger?.warn(
        { label: opts.label, attempt, problem: problem.error, answer: lastAnswer.slice(0, 2000) },
        "LLM answer did not match the schema",
      );
      // The same request plus what was wrong: models fix a named error far more often than they
      // produce a different answer to an identical prompt.
      content = `${instruction}\n\n${reflection(problem.error)}`;
    }
    throw new LlmParseError(`LLM answer did not match the schema after ${attempts} attempts: ${lastProblem}`, lastAnswer);
  }

  async completeText(prompt: string, texts: readonly string[], opts: LlmCallOptions = {}): Promise<string> {
    const budget = Math.max(1000, this.opts.contextWindow * CHARS_PER_TOKEN - prompt.length - 2000);
    return this.treeSummarise(prompt, texts, budget, opts, 0);
  }

  /** Answer over the texts at once when they fit; else per part, then over the parts' answers. */
  private async treeSummarise(
    prompt: string,
    texts: readonly string[],
    budget: number,
    opts: LlmCallOptions,
    depth: number,
  ): Promise<string> {
    const joined = texts.join("\n\n");
    if (joined.length <= budget || depth >= 4) {
      const content = texts.length ? `${prompt}\n\n${depth >= 4 ? joined.slice(0, budget) : joined}` : prompt;
      return (await this.chat([{ role: "user", content }], opts)).trim();
    }
    const parts = splitToBudget(texts, budget);
    const answers: string[] = [];
    for (const part of parts) answers.push(await this.treeSummarise(prompt, [part], budget, opts, depth + 1));
    return this.treeSummarise(prompt, answers.filter(Boolean), budget, opts, depth + 1);
  }

  private async chat(messages: Message[], opts: LlmCallOptions, responseFormat?: object): Promise<string> {
    const answer = await requestJson(
      {
        url: joinUrl(this.opts.baseUrl, "/chat/completions"),
        headers: { "content-type": "application/json", ...bearer(this.opts.apiKey) },
        body: () =>
          JSON.stringify({
            model: this.opts.model,
            messages,
            temperature: opts.temperature ?? this.opts.temperature,
            ...(responseFormat ? { response_format: responseFormat } : {}),
          }),
        timeoutMs: this.opts.timeoutMs,
        retry: this.opts.retry,
        service: "LLM",
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(this.opts.logger ? { logger: this.opts.logger } : {}),
      },
      ChatCompletion,
    );
    const message = answer.choices[0]!.message;
    if (message.content == null && message.refusal) throw new AppError("invalid", `LLM refused: ${message.refusal}`);
    return message.content ?? "";
  }
}

type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** Parse a model's JSON answer (tolerating code fences and prose around it) and validate it. */
export function checkAnswer<S extends z.ZodType>(answer: string, schema: S): Checked<z.infer<S>> {
  const json = extractJson(answer);
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `Parse error: ${(e as Error).message}` };
  }
  const parsed = schema.safeParse(data);
  if (parsed.success) return { ok: true, value: parsed.data };
  const lines = parsed.error.issues.map((i) => `- ${i.path.join(".") || "(root)"}: ${i.message}`);
  return { ok: false, error: `Schema validation errors:\n${lines.join("\n")}` };
}

function extractJson(answer: string): string {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(answer);
  const text = (fenced ? fenced[1]! : answer).trim();
  const first = text.search(/[[{]/);
  if (first < 0) return text;
  const last = Math.max(text.lastIndexOf("}"), text.lastIndexOf("]"));
  return last > first ? text.slice(first, last + 1) : text.slice(first);
}

export function reflection(error: string): string {
  return [
    "Your previous response could not be parsed or did not match the schema.",
    `Error: ${error}`,
    "Return only valid JSON that matches the schema.",
  ].join("\n");
}

/** Split texts (by paragraph, then by line, then hard) into pieces of at most `budget` characters. */
export function splitToBudget(texts: readonly string[], budget: number): string[] {
  const pieces: string[] = [];
  let current = "";
  const flush = () => {
    if (current) pieces.push(current);
    current = "";
  };
  for (const unit of texts.flatMap((t) => t.split(/\n/))) {
    for (let i = 0; i < Math.max(1, unit.length); i += budget) {
      const part = unit.slice(i, i + budget);
      if (current.length + part.length + 1 > budget) flush();
      current = current ? `${current}\n${part}` : part;
    }
  }
  flush();
  return pieces;
}
