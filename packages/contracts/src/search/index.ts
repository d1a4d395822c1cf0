// Search: the search service's operation.
export * from "./rpc";
