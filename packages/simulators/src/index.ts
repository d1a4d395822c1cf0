// Local stand-ins for the hosted systems Scribe talks to (both video platforms, an identity
// provider, SMTP, Zulip) and the synthesised-speech meetings they play, for tests, `scribe dev` and
// `scribe demo`.
export * from "./daily";
export * from "./whereby";
export * from "./speech/synth";
export * from "./speech/meetings";
export * from "./daily-control";
export * from "./platform-env";
export * from "./idp";
export * from "./smtp";
export * from "./zulip";
export * from "./speech/pipeline-meetings";
export * from "./speech/summary-meetings";
export * from "./speech/summary-scoring";
export * from "./speech/summary-transcripts";
