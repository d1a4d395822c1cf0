// Identity: the caller, API keys, login.
export * from "./api";
