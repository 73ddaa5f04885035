// What every view does with the API: load when its inputs change (the previous request aborted),
// keep the last value on screen while the next one loads, keep the error, retry on demand.
import { useEffect, useState } from 'preact/hooks';
import { isAbort } from '../api.js';

export interface Loading<T> {
  value: T | null;
  error: unknown;
  busy: boolean;
}

export function useAnswer<T>(
  load: (signal: AbortSignal) => Promise<T>,
  inputs: unknown[],
  /** The value on screen already answers these inputs: nothing to load (unless it is a retry after an error). */
  current: (value: T) => boolean = () => false,
): Loading<T> & { retry(): void; update(next: Loading<T>): void } {
  const [state, setState] = useState<Loading<T>>({ value: null, error: null, busy: true });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (state.value !== null && state.error === null && current(state.value)) return;
    const ctrl = new AbortController();
    setState((s) => ({ ...s, busy: true }));
    load(ctrl.signal).then(
      (value) => setState({ value, error: null, busy: false }),
      (error: unknown) => {
        if (!isAbort(error)) setState((s) => ({ ...s, error, busy: false }));
      },
    );
    return () => ctrl.abort();
  }, [...inputs, attempt]);
  return { ...state, retry: () => setAttempt((n) => n + 1), update: setState };
}
