export { meetingsService } from "./service";
export { meetingCreationWaits, meetingsProcessingSkipped } from "./metrics";
