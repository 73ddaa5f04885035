import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

// A logger for an in-process app whose warnings a test keeps: a read answered in Degraded Mode
// logs why (the index's error), and a failure message that only counts degraded answers cannot
// say. Lines at TEST_LOG_LEVEL (silent by default) still go to stdout as with createLogger.

export interface CapturedLog {
  logger: Logger;
  /** The warnings and errors since the last clear, each as `time msg {fields}` (the first `max`). */
  warnings(): string[];
  clear(): void;
}

const WARN = 40;

export function capturedLog(name: string, max = 20): CapturedLog {
  let kept: string[] = [];
  const echo = process.env.TEST_LOG_LEVEL;
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      const line = chunk.toString('utf8');
      try {
        const { level, time, msg, name: _name, pid: _pid, hostname: _host, ...fields } = JSON.parse(line) as Record<string, unknown>;
        if (typeof level === 'number' && level >= WARN && kept.length < max) {
          kept.push(`${new Date(Number(time)).toISOString()} ${String(msg)} ${JSON.stringify(fields)}`);
        }
        if (echo && echo !== 'silent' && typeof level === 'number' && level >= pino.levels.values[echo]!) process.stdout.write(line);
      } catch {
        if (kept.length < max) kept.push(line.trim());
      }
      done();
    },
  });
  const levels = [echo ?? 'silent', 'warn'].filter((l) => l in pino.levels.values);
  const level = levels.sort((a, b) => pino.levels.values[a]! - pino.levels.values[b]!)[0] ?? 'warn';
  return {
    logger: pino({ level, name }, stream),
    warnings: () => [...kept],
    clear: () => {
      kept = [];
    },
  };
}
