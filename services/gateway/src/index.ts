export { gatewayService } from "./service";
export { createApp } from "./app";
export { describeApi, type OpenApiDocument } from "./openapi";
