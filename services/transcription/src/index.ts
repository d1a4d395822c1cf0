export { transcriptionService } from "./service";
export { DbTranscriptPort } from "./port";
export { LiveRecorder, NO_AUDIO } from "./live/index";
