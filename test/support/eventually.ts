/**
 * Polls `check` until it stops throwing or `timeoutMs` passes; returns how long it took. The
 * default is generous: on a loaded CI machine a write takes a batch, a refresh and a poll to show,
 * and how fast it shows is the benchmarks' to measure, not the tests'.
 */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 10_000, everyMs = 50): Promise<number> {
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
