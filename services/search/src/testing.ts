// For the search benchmark: the statement and session settings the service runs.
export { SEARCH_DB_SETTINGS, searchStatement } from "./store";
