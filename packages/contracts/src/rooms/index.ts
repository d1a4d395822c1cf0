// Rooms: API schemas and the rooms service's operations (room events are listed in the registry).
export * from "./api";
export * from "./rpc";
