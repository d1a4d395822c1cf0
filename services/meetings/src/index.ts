export { meetingsService } from "./service";
