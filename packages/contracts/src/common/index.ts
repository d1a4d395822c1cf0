// Shared by every context: the event envelope and streams, enums of the wire contract, common schemas,
// request/reply plumbing and datetime formatting.
export * from "./envelope";
export * from "./streams";
export * from "./enums";
export * from "./schemas";
export * from "./event-def";
export * from "./rpc";
export * from "./datetime";
