// For tests of the read model's feed: the lag measurement and the store's feed internals; the search
// token fill, for the search bench's kept corpora.
export { measureLag } from "./lag";
export { LIVE_TABLES, applyEvent, takeFeedLock } from "./store";
export { fillSearchPairs } from "./search-impact-fill";
