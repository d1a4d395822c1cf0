// Calendar / ICS: API schemas, calendar events and the calendar service's operations.
export * from "./api";
export * from "./events";
export * from "./rpc";
