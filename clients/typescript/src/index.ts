export { DEFAULT_URL, StrataClient } from "./client.js";
export type { Rating, RequestOptions, StrataClientOptions, Tier } from "./client.js";
export { StrataError, retryAfter } from "./errors.js";
export type * from "./openapi.js";
