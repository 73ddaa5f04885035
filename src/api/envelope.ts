// The wire envelope of api-contract.md: every JSON response is one of these two shapes.

export type ErrorCode =
  | 'UNAUTHORIZED'
  | 'INVALID_REQUEST'
  | 'UNSUPPORTED_API_VERSION'
  | 'SELLER_SOURCE_EXCLUSIVE'
  | 'BATCH_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'ORDER_NOT_FOUND'
  | 'SELLER_NOT_FOUND'
  | 'INVALID_TRANSITION'
  | 'NOT_FOUND'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export interface ErrorBody {
  success: false;
  error: { code: ErrorCode; message: string; details?: unknown };
}

/** An error that is meant for the client: it carries its HTTP status and envelope code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function ok<T>(data: T, extra: { degraded?: boolean } = {}): { success: true; degraded?: true; data: T } {
  return extra.degraded ? { success: true, degraded: true, data } : { success: true, data };
}

/**
 * The text of `JSON.stringify(ok(data, extra))`, built around `dataJson` (the text of
 * `JSON.stringify(data)`), so an answer already serialized is not serialized again.
 */
export function okJson(dataJson: string, extra: { degraded?: boolean } = {}): string {
  return `${okJsonHead(extra)}${dataJson}}`;
}

/** The text of `okJson` before the data's JSON (after it comes `}`). */
export function okJsonHead(extra: { degraded?: boolean } = {}): string {
  return extra.degraded ? '{"success":true,"degraded":true,"data":' : '{"success":true,"data":';
}

export function errorBody(code: ErrorCode, message: string, details?: unknown): ErrorBody {
  return details === undefined ? { success: false, error: { code, message } } : { success: false, error: { code, message, details } };
}
