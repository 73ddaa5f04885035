import type { z } from 'zod';
import type { FieldIssue } from '../contract/errors.js';
import { ApiError } from './envelope.js';

/** zod issues as `details`: one entry per bad field, named by its dotted path. */
export function fieldIssues(error: z.ZodError, prefix = ''): FieldIssue[] {
  return error.issues.map((i) => ({
    field: [prefix, ...i.path.map(String)].filter((p) => p !== '').join('.') || '(root)',
    message: i.message,
  }));
}

/** Parses input with schema or throws a 400 INVALID_REQUEST naming every bad field. */
export function parseOr400<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new ApiError(400, 'INVALID_REQUEST', 'Request failed validation', fieldIssues(result.error, prefix));
  }
  return result.data;
}
