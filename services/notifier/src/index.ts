export { notifierService } from "./service";
