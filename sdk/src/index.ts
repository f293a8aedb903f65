export { createClient, type ClientOptions, type OdsClient } from "./client.js";
export { OdsApiError, type ErrorCode } from "./errors.js";
export type { ApiResult, RateLimit, ResponseMeta } from "./meta.js";
export type { OperationData, OperationId, OperationInput, Operations } from "./operations.js";
export type { Paginated, PaginatedOperations } from "./pagination.js";
export type { RetryOptions } from "./retry.js";
export {
  OdsStreamError,
  type ChannelMessage,
  type ChannelSubscription,
  type FlowBatch,
  type FlowFilters,
  type FlowPrint,
  type FlowSubscription,
  type StreamChannel,
  type StreamFilters,
  type StreamOptions,
} from "./stream.js";
export type { StreamChannels } from "./client.js";
export type { components, operations, paths } from "./generated/api.js";
