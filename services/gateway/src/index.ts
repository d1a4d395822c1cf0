export { gatewayService } from "./service";
export { createApp } from "./app";
export { describeApi, type OpenApiDocument } from "./openapi";
export { hashPassword, verifyPassword } from "./auth/password-hash";
export type { Authenticator } from "./auth/identity";
