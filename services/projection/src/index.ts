export { projectionService } from "./service";
