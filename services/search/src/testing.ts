// For the search benchmark: the statement and session settings the service runs.
export { SEARCH_DB_SETTINGS, availableSearchIndex, searchStatement, searchTranscripts, type SearchQuery } from "./store";
