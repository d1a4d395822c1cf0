export * from "./types";
export * from "./local";
export * from "./s3";
export * from "./config";
export { contentTypeOf } from "./content-types";
