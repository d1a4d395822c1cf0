// Recordings: stored media, recording events and the recordings service's operations.
export * from "./api";
export * from "./events";
export * from "./rpc";
