export { transcriptionService } from "./service";
export { DbTranscriptPort } from "./port";
