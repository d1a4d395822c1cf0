export { roomsService } from "./service";
