/** A refused order request, as the API answers it (the route maps it into the envelope). */
export class OrderRequestError extends Error {
  constructor(
    readonly status: 400 | 404 | 422,
    readonly code: 'INVALID_REQUEST' | 'ORDER_NOT_FOUND' | 'INVALID_TRANSITION',
    message: string,
    readonly details?: { field: string; message: string }[],
  ) {
    super(message);
    this.name = 'OrderRequestError';
  }
}

export const orderNotFound = () => new OrderRequestError(404, 'ORDER_NOT_FOUND', 'No such order for this seller');
