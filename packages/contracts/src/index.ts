// The contracts of Scribe, one folder per bounded context; consumers import only this entry point.
export * from "./common";
export * from "./registry";
export * from "./identity";
export * from "./rooms";
export * from "./meetings";
export * from "./calendar";
export * from "./recordings";
export * from "./transcripts";
export * from "./notifications";
export * from "./search";
export * from "./events-catalog";
