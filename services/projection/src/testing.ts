// For tests of the read model's feed: the lag measurement and the store's feed internals; the search
// fill, for tests and the search bench's corpora, which are loaded without the projection.
export { measureLag } from "./lag";
export { LIVE_TABLES, applyEvent, takeFeedLock } from "./store";
export { copyForSearch, fillSearch, fillSearchCopies, searchFillWaiting } from "./search-fill";
