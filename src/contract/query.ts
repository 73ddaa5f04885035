import { z } from 'zod';

/**
 * A query-string integer: plain decimal digits only (no "1e3", no sign, no arrays), at most
 * `maxDigits` of them, then range-checked.
 */
export const queryInt = (min: number, max?: number, maxDigits = 9) =>
  z
    .string()
    .regex(new RegExp(`^[0-9]{1,${maxDigits}}$`), 'must be an integer')
    .transform(Number)
    .pipe(max === undefined ? z.int().min(min) : z.int().min(min).max(max));
