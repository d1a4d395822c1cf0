// Notifications: config, e-mail and team-chat schemas, webhook payloads, notifier events and operations.
export * from "./api";
export * from "./rpc";
