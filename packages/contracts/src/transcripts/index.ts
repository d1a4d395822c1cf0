// Transcripts: API schemas, transcript and retention events (and the WebVTT transcript.completed
// and transcript.updated carry), access rules, rendering, storage keys, the transcription service's
// operations and the read model's (projection) operations.
export * from "./api";
export * from "./events";
export * from "./retention-events";
export * from "./access";
export * from "./render";
export * from "./storage-keys";
export * from "./rpc";
export * from "./read-model-rpc";
export * from "./document-tag";
export * from "./live";
export * from "./completed-webvtt";
export * from "./updated-webvtt";
