// Types of what the calendar service's start() returns, for the tests that drive it with a clock.
export type { calendarCommands } from "./commands";
export type { calendarJobs } from "./jobs";
export type { calendarQueries } from "./queries";
export type { Syncer } from "./sync";
