export { recordingsService } from "./service";
