// For the search benchmark: the statement and session settings the service runs.
export { SEARCH_DB_SETTINGS, availableSearchIndex, searchStatement, type SearchQuery } from "./store";
