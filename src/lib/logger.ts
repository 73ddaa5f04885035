import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', name = 'marketplace'): Logger {
  return pino({ level, name });
}
