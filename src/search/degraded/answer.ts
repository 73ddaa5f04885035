// What a buyer read answers: its data, whether it came in Degraded Mode, and its JSON text.

export interface Answer<T> {
  readonly data: T;
  readonly degraded: boolean;
  /**
   * `JSON.stringify(data)`, computed at most once: a good index answer's is the text the
   * last-good cache keeps, a cached answer's the text it kept (its `data` is only parsed when
   * read). Routes that send `data` as it is build their response from this text.
   */
  json(): string;
}

/** An answer from its data, its JSON text, or both (at least one). */
export class JsonAnswer<T> implements Answer<T> {
  #data: T | undefined;
  #hasData: boolean;
  #json: string | undefined;

  constructor(
    readonly degraded: boolean,
    from: { data: T; json?: string } | { json: string },
  ) {
    this.#hasData = 'data' in from;
    this.#data = 'data' in from ? from.data : undefined;
    this.#json = from.json;
  }

  get data(): T {
    if (!this.#hasData) {
      this.#data = JSON.parse(this.#json!) as T;
      this.#hasData = true;
    }
    return this.#data as T;
  }

  json(): string {
    if (this.#json === undefined) this.#json = JSON.stringify(this.#data);
    return this.#json;
  }
}

/** A failed call's reason for logs and the breaker: Elasticsearch's error type, else the error's name and message. */
export function failureReason(err: unknown): string {
  const e = err as { name?: string; message?: string; meta?: { body?: { error?: { type?: string } } } };
  return e.meta?.body?.error?.type ?? `${e.name ?? 'Error'}: ${e.message ?? String(err)}`;
}
