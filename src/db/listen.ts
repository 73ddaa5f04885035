import * as pgListen from 'pg-listen';
import type { Subscriber } from 'pg-listen';
import type { Logger } from '../lib/logger.js';

// pg-listen is CommonJS with a `default` export; under NodeNext the default import is the module object.
type CreateSubscriber = typeof import('pg-listen').default;
const createSubscriber: CreateSubscriber =
  (pgListen as unknown as { default: { default?: CreateSubscriber } & CreateSubscriber }).default.default ??
  (pgListen as unknown as { default: CreateSubscriber }).default;

/** LISTEN with supervision: pg-listen gives up after its retry timeout, so it is recreated. */
export function listen(databaseUrl: string, channel: string, logger: Logger, onWake: () => void): { close(): Promise<void> } {
  let current: Subscriber | null = null;
  let closed = false;
  const start = () => {
    if (closed) return;
    const sub = createSubscriber({ connectionString: databaseUrl }, { parse: (s: string) => s, retryTimeout: 60_000 });
    current = sub;
    sub.notifications.on(channel, onWake);
    sub.events.on('connected', onWake); // catch up on whatever was missed while disconnected
    sub.events.on('error', (err: Error) => {
      logger.warn({ err: err.message, channel }, 'listener lost; restarting it');
      void sub.close().catch(() => undefined);
      setTimeout(start, 1000);
    });
    sub
      .connect()
      .then(() => sub.listenTo(channel))
      .catch((err: Error) => {
        logger.warn({ err: err.message, channel }, 'listener could not connect; retrying');
        setTimeout(start, 1000);
      });
  };
  start();
  return {
    close: async () => {
      closed = true;
      await current?.close();
    },
  };
}
