// For tests of the read model's feed: the lag measurement and the store's feed internals.
export { measureLag } from "./lag";
export { LIVE_TABLES, applyEvent, takeFeedLock } from "./store";
