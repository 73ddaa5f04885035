import { DomainError } from '../contract/errors.js';

/** Unknown and other sellers' orders are the same answer, so existence does not leak. */
export const orderNotFound = () => new DomainError('order-not-found', 'No such order for this seller');
