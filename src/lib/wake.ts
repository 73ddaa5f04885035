/** A one-slot wake-up: many notifications while busy collapse into one more pass. */
export function createWake() {
  let pending = false;
  let waiter: (() => void) | null = null;
  return {
    wake() {
      pending = true;
      waiter?.();
    },
    /** Resolves on the next wake() (or one that came while busy), or after timeoutMs. */
    wait(timeoutMs: number): Promise<void> {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const timer = setTimeout(done, timeoutMs);
        function done() {
          clearTimeout(timer);
          waiter = null;
          pending = false;
          resolve();
        }
        waiter = done;
      });
    },
  };
}
