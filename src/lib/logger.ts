import { pino, type Logger } from 'pino';

export type { Logger };

// Lines go to stdout synchronously (pino's default destination). Measured for the API (one
// request line each, stdout to /dev/null, paired runs): pino.destination({ sync: false }) saved
// nothing measurable per request (each line is still one write, now through the thread pool),
// and sync: false with minLength 4096 + periodicFlush 1 s about 2% of the API's CPU. Not worth its
// costs: buffered lines are lost when the process dies without running its exit handlers
// (SIGKILL, OOM kill, a native crash: the lines that would explain it), and a quiet process shows
// its lines up to a second late. (pino flushes an async destination on a normal exit by itself.) The cost of sync writes to keep in mind: when stdout is a
// pipe whose reader stalls, a write blocks the event loop (async would grow memory instead).
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', name = 'marketplace'): Logger {
  return pino({ level, name });
}
