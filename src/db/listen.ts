import * as pgListen from 'pg-listen';
import type { Subscriber } from 'pg-listen';
import type { Logger } from '../lib/logger.js';

// pg-listen is CommonJS with a `default` export; under NodeNext the default import is the module object.
type CreateSubscriber = typeof import('pg-listen').default;
const createSubscriber: CreateSubscriber =
  (pgListen as unknown as { default: { default?: CreateSubscriber } & CreateSubscriber }).default.default ??
  (pgListen as unknown as { default: CreateSubscriber }).default;

/** Who hears of the listener's state as well as of its notifications. */
export interface ListenHooks {
  /** LISTEN is in force (first time, and after every reconnect): notifications from now on arrive. */
  onListening?: () => void;
  /** The connection dropped: notifications until the next onListening are lost. */
  onLost?: () => void;
  /** The connection's application_name (who listens, in pg_stat_activity). */
  applicationName?: string;
}

/**
 * LISTEN with supervision: pg-listen gives up after its retry timeout, so it is recreated.
 * `onWake` gets each notification's payload, and is called without one on every (re)connect.
 */
export function listen(
  databaseUrl: string,
  channel: string,
  logger: Logger,
  onWake: (payload?: string) => void,
  hooks: ListenHooks = {},
): { close(): Promise<void> } {
  let current: Subscriber | null = null;
  let closed = false;
  const start = () => {
    if (closed) return;
    const sub = createSubscriber(
      { connectionString: databaseUrl, ...(hooks.applicationName ? { application_name: hooks.applicationName } : {}) },
      { parse: (s: string) => s, retryTimeout: 60_000 },
    );
    current = sub;
    let listening = false;
    sub.notifications.on(channel, (payload: string) => onWake(payload));
    sub.events.on('connected', () => {
      onWake(); // catch up on whatever was missed while disconnected
      // pg-listen LISTENs again before it says a reconnect is done; the first LISTEN is below.
      if (listening) hooks.onListening?.();
    });
    sub.events.on('reconnect', () => hooks.onLost?.());
    sub.events.on('error', (err: Error) => {
      hooks.onLost?.();
      logger.warn({ err: err.message, channel }, 'listener lost; restarting it');
      void sub.close().catch(() => undefined);
      setTimeout(start, 1000);
    });
    sub
      .connect()
      .then(() => sub.listenTo(channel))
      .then(() => {
        listening = true;
        hooks.onListening?.();
      })
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
