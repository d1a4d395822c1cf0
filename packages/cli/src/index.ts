// @scribe/cli: the services in start order and the commands' work as functions (tests call them directly).
export { SERVICES, servicesByName } from "./services";
export { configRows, configTable } from "./commands/config";
export { startDevStack, DEV_DEFAULTS, type DevStack } from "./commands/dev";
export * from "./commands/demo";
export { listDeadLetters, redriveDeadLetters, type DeadLetter } from "./commands/dlq";
export { tailStream, type TailedEvent, type TailOptions } from "./commands/tail";
export { streamStatus, streamStatusOf, type StreamStatus } from "./commands/streams";
export { recordingsCommand } from "./commands/recordings";
export { rebuildCommand, redriveCommand } from "./commands/replay";
export { runCli, buildProgram, USAGE_ERROR } from "./cli";
export { transcribeFile, TranscribeError, type TranscribeOptions } from "./commands/transcribe";
export { explainError } from "./errors";
