// The small interfaces the pipelines call: speech-to-text, diarization, LLM and summarisation,
// plus the data they exchange. Times are seconds from the start of the audio.
import type { z } from "zod";

/**
 * Where the audio is. A string is a local path, or an http(s) URL. Backends that run on another
 * machine (the GPU diarization API) need a URL they can fetch; local ones read either.
 */
export type AudioInput = string | { path?: string; url?: string };

/** One recognised word; `text` carries its own leading space so concatenation yields the sentence. */
export interface SttWord {
  text: string;
  start: number;
  end: number;
  /** 0..1 when the backend reports one (pocketsphinx, some Whisper servers), else null. */
  confidence: number | null;
}

export interface Transcription {
  words: SttWord[];
  /** The language of the speech (ISO 639-1 where known), as detected or as requested. */
  language: string;
}

export interface TranscribeOptions {
  /** ISO 639-1 code of the spoken language, e.g. "en"; "auto" lets a backend detect it. */
  language: string;
  signal?: AbortSignal;
}

export interface SpeechToText {
  readonly name: string;
  transcribe(audio: AudioInput, opts: TranscribeOptions): Promise<Transcription>;
  /**
   * A recogniser fed a live stream as it arrives, for backends that can keep one running
   * (pocketsphinx). Absent for backends that take whole chunks only (the HTTP ones): their callers
   * cut the stream at pauses and call `transcribe` per chunk.
   */
  openStream?(opts: SpeechStreamOptions): SpeechStream;
}

/** One utterance of a live stream (ended by a pause or by the end of input). */
export interface StreamedUtterance {
  /** Times in seconds from the start of the stream; the utterance is one sentence. */
  words: SttWord[];
}

export interface SpeechStreamOptions {
  /** ISO 639-1 code of the spoken language, as for `transcribe`. */
  language: string;
  /** Called once per utterance, in stream order, as soon as the recogniser finished it. */
  onUtterance: (utterance: StreamedUtterance) => void;
}

/** A running stream recogniser: 16 kHz mono signed 16-bit little-endian PCM in, utterances out. */
export interface SpeechStream {
  write(pcm: Buffer): void;
  /** End of input: resolves once the last utterance was delivered and the recogniser is gone. */
  end(): Promise<void>;
  /** Stop at once (a crash, for tests; abandoned sessions): nothing more is delivered. */
  kill(): void;
}

export interface DiarizationSegment {
  start: number;
  end: number;
  speaker: number;
}

export interface Diarizer {
  readonly name: string;
  /** Speaker turns of a single-track recording (multitrack recordings need none). */
  diarize(audio: AudioInput, opts?: { signal?: AbortSignal }): Promise<DiarizationSegment[]>;
}

/** A transcript word as stored (api.md Word). */
export interface Word {
  text: string;
  start: number;
  end: number;
  speaker: number;
}

export interface LlmCallOptions {
  /** Sampling temperature; the backend's default (LLM_TEMPERATURE) when omitted. */
  temperature?: number;
  /** Short label for logs ("Topic analyzer"); no effect on the answer. */
  label?: string;
  signal?: AbortSignal;
}

export interface Llm {
  readonly name: string;
  /**
   * Ask for a JSON answer matching `schema`. Malformed answers are retried with the validation
   * errors fed back; exhausting those retries is a non-retryable `Invalid` error, an unreachable
   * backend a retryable `Unavailable` one.
   */
  completeJson<S extends z.ZodType>(prompt: string, schema: S, opts?: LlmCallOptions): Promise<z.infer<S>>;
  /** A plain-text answer, stripped; texts too long for the context window are summarised in parts. */
  completeText(prompt: string, texts: readonly string[], opts?: LlmCallOptions): Promise<string>;
}

/** A person recorded for the meeting; `speaker` links them to the words' speaker label. */
export interface Participant {
  id?: string | null;
  name: string;
  speaker?: number | null;
}

export interface SummaryContext {
  participants: readonly Participant[];
  /** Language of the transcript (ISO 639-1). */
  sourceLanguage: string;
  /** Language the titles and summaries should be written in. */
  targetLanguage: string;
}

export interface TopicSummary {
  title: string;
  summary: string;
}

export interface Decision {
  decision: string;
  rationale: string | null;
  decided_by: string | null;
  decided_by_participant_id: string | null;
}

export interface NextStep {
  task: string;
  assigned_to: string | null;
  assigned_to_participant_id: string | null;
  deadline: string | null;
  context: string | null;
}

/** Stored as is in the transcript's `action_items` (behaviour §1.3). */
export interface ActionItems {
  decisions: Decision[];
  next_steps: NextStep[];
}

export interface SubjectSummary {
  subject: string;
  summary: string;
}

export interface MeetingSummary {
  subjects: SubjectSummary[];
  /** The recap paragraph; null when there was nothing to summarise. */
  shortSummary: string | null;
  /** Markdown: `# Quick recap` and `# Summary` sections (behaviour §7.7). */
  longSummary: string | null;
  actionItems: ActionItems | null;
}

export interface SummaryInput {
  words: readonly Word[];
  ctx: SummaryContext;
  /** Recording duration; when given, the number of subjects follows it (computeMaxSubjects). */
  durationSeconds?: number;
}

export interface Summariser {
  readonly name: string;
  /** Title and at most two sentences for one chunk of the transcript (behaviour §7.5). */
  topic(words: readonly Word[], ctx: SummaryContext): Promise<TopicSummary>;
  /** One meeting title from the topic titles; null when there are none (behaviour §7.6). */
  title(topicTitles: readonly string[], ctx: SummaryContext): Promise<string | null>;
  /** Subjects, recap, long summary and action items (behaviour §7.7). */
  summary(input: SummaryInput): Promise<MeetingSummary>;
}
