export { searchService } from "./service";
