// For the search benchmark: the statement and session settings the service runs.
export { SEARCH_DB_SETTINGS, availableSearchIndex, impactTokensReady, searchStatement, searchTranscripts, type SearchQuery } from "./store";
