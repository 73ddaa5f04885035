/** Polls `check` until it stops throwing or `timeoutMs` passes; returns how long it took. */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 2000, everyMs = 50): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      await check();
      return Date.now() - started;
    } catch (err) {
      if (Date.now() - started > timeoutMs) throw err;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }
}
