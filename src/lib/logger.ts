import { pino, type Logger } from 'pino';

export type { Logger };

// Lines go to stdout synchronously (pino's default destination). An async destination saved
// nothing measurable per request, and a buffered one only a little of the API's CPU (BENCHMARKS.md,
// "API CPU per request"). Not worth its costs: buffered lines are lost when the process dies without running its exit handlers
// (SIGKILL, OOM kill, a native crash: the lines that would explain it), and a quiet process shows
// its lines up to a second late. (pino flushes an async destination on a normal exit by itself.) The cost of sync writes to keep in mind: when stdout is a
// pipe whose reader stalls, a write blocks the event loop (async would grow memory instead).
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', name = 'marketplace'): Logger {
  return pino({ level, name });
}
