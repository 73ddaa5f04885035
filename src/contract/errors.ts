// Errors the domain (search, listings, orders) throws. They say what went wrong, not which HTTP
// status it is: src/api/middleware/errors.ts alone maps them to the wire envelope.

export type DomainErrorKind =
  /** A page cursor that is malformed, tampered with, or was issued for another query. */
  | 'invalid-cursor'
  /** Neither the index nor the Degraded Mode fallbacks could answer; retry later. */
  | 'search-unavailable'
  /** The thing asked for does not exist (or is not the caller's). */
  | 'not-found'
  /** No such order for this seller (another seller's order included, so existence does not leak). */
  | 'order-not-found'
  /** A state change the thing's current state does not allow. */
  | 'invalid-transition'
  /** A request field that is well-formed but wrong against the stored state (e.g. a cancel naming a line the order lacks). */
  | 'invalid-request'
  /** Dispatch evidence that conflicts with the order's frozen shipping option (tracked or untracked). */
  | 'dispatch-evidence-conflict';

export interface FieldIssue {
  field: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** Field-level detail for the client (e.g. which parameter was wrong). */
    readonly issues?: FieldIssue[],
    /** For `search-unavailable`: when to try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
