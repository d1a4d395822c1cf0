export { meetingsService } from "./service";
export { meetingsProcessingSkipped } from "./metrics";
