// @scribe/media: ffmpeg-based audio work for the pipelines (probe, offsets, conversion, padding,
// mixdown, MP3, waveform and levels), all streamed, each with a timeout and an AbortSignal.
export * from "./errors";
export * from "./tool";
export * from "./probe";
export * from "./transcode";
export * from "./mixdown";
export * from "./analyze";
export * from "./pcm";
export * from "./generate";
export * from "./storage";
export * from "./opus-stream";
