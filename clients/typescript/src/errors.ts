// What a call throws. A caller's own abort is rethrown as the platform's AbortError, untouched.

/** Every error the client raises itself. */
export class MarketplaceError extends Error {
  override name = 'MarketplaceError';
}

/** The API answered with a failure: its envelope's code and message (code null when the body was not an envelope). */
export class ApiError extends MarketplaceError {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
    readonly details: unknown = undefined,
    /** The answer's Retry-After, in milliseconds, when it had one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

/** No answer: the connection failed or was reset (after the retries a safe call is allowed). */
export class ConnectionError extends MarketplaceError {
  override name = 'ConnectionError';
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

/** The call's timeout (timeoutMs, retries and their waits included) ran out. */
export class TimeoutError extends MarketplaceError {
  override name = 'TimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}
