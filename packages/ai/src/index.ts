// @scribe/ai: model backends (speech-to-text, diarization, LLM) and summarisation, each with an
// offline default; pick and configure them with loadAiConfig + createBackends.
export * from "./types";
export * from "./config";
export * from "./factory";
export { resolveAudio, readWav, wavBuffer, run as runCommand, type PcmAudio } from "./audio";
export { LlmParseError } from "./llm/openai";
export { assignSpeakers } from "./diarization/assemble";
export { computeTopicChunkSize, computeMaxSubjects, topicChunks, MIN_TRANSCRIPT_LENGTH } from "./summary/chunking";
export { cleanTitle, matchParticipant, stripTaskPrefix, transcriptText, wordsToSegments, type Segment } from "./summary/text";
export { detectTopics, summariseMeeting, type DetectedTopic, type MeetingResult } from "./summary/meeting";
export { diarizationErrorRate, normaliseForWer, vocabularyShare, wordErrorRate } from "./metrics";
export { PocketsphinxStt } from "./stt/pocketsphinx";
export { parsePocketsphinxTimes } from "./stt/pocketsphinx-output";
export { PocketsphinxStream } from "./stt/pocketsphinx-stream";
export { OpenAiStt } from "./stt/openai";
export { GpuApiStt } from "./stt/gpu";
export { OfflineDiarizer, OFFLINE_DIARIZER_DEFAULTS } from "./diarization/offline";
export { GpuApiDiarizer } from "./diarization/gpu";
export { OpenAiLlm } from "./llm/openai";
export { LlmSummariser } from "./summary/llm-summariser";
export { ExtractiveSummariser } from "./summary/extractive";
