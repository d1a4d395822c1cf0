// Meetings: API schemas, meeting events and the meetings service's operations.
export * from "./api";
export * from "./events";
export * from "./rpc";
