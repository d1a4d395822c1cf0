export { calendarService } from "./service";
