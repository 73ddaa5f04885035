import { pino, type Logger } from 'pino';

export type { Logger };

// Lines go to stdout synchronously (pino's default destination). Measured for the API (one
// request line each, stdout to /dev/null, paired runs): pino.destination({ sync: false }) saved
// nothing measurable per request, and sync: false with minLength 4096 + periodicFlush 1 s at most
// ~1-3%, within the noise. Not worth its costs: buffered lines are lost when the process dies
// without running its exit handlers (SIGKILL, OOM kill, a native crash), and a quiet process
// shows its lines up to a second late. The cost of sync writes to keep in mind: when stdout is a
// pipe whose reader stalls, a write blocks the event loop (async would grow memory instead).
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', name = 'marketplace'): Logger {
  return pino({ level, name });
}
