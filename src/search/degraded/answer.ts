// What a buyer read answers: its data, whether it came in Degraded Mode, and its JSON.

export interface Answer<T> {
  readonly data: T;
  readonly degraded: boolean;
  /**
   * `JSON.stringify(data)`, computed at most once: a good index answer's is the text the
   * last-good cache keeps (its `data` is only parsed when read).
   */
  json(): string;
  /**
   * The JSON as a response sends it: the text, or for an answer from the last-good cache or the
   * fallback's memo the UTF-8 bytes they keep, as they are (no decoding and encoding again).
   */
  body(): string | Buffer;
}

/** An answer from its data, its JSON text, or both, or from the UTF-8 bytes of its JSON. */
export class JsonAnswer<T> implements Answer<T> {
  #data: T | undefined;
  #hasData: boolean;
  #json: string | undefined;
  #bytes: Buffer | undefined;

  constructor(
    readonly degraded: boolean,
    from: { data: T; json?: string } | { json: string } | { bytes: Buffer },
  ) {
    this.#hasData = 'data' in from;
    this.#data = 'data' in from ? from.data : undefined;
    this.#json = 'json' in from ? from.json : undefined;
    this.#bytes = 'bytes' in from ? from.bytes : undefined;
  }

  get data(): T {
    if (!this.#hasData) {
      this.#data = JSON.parse(this.json()) as T;
      this.#hasData = true;
    }
    return this.#data as T;
  }

  json(): string {
    if (this.#json === undefined) this.#json = this.#bytes === undefined ? JSON.stringify(this.#data) : this.#bytes.toString('utf8');
    return this.#json;
  }

  body(): string | Buffer {
    return this.#bytes ?? this.json();
  }
}

interface EsErrorBody {
  type?: string;
  reason?: string;
  caused_by?: EsErrorBody;
  failed_shards?: { reason?: EsErrorBody }[];
}

/**
 * `type: reason`, then its cause's (or a failed shard's), innermost last: a wrapper such as
 * no_shard_available or all shards failed names only that something failed, its cause what.
 */
function describeEsError(e: EsErrorBody, depth = 0): string {
  const own = e.reason ? `${e.type}: ${e.reason}` : String(e.type);
  const cause = e.caused_by ?? e.failed_shards?.[0]?.reason;
  return typeof cause?.type === 'string' && depth < 3 ? `${own} <- ${describeEsError(cause, depth + 1)}` : own;
}

/**
 * A failed call's reason for logs and the breaker: Elasticsearch's error (type, reason and
 * causes), else the error's name and message. Bounded: it goes into a log line and /readyz.
 */
export function failureReason(err: unknown): string {
  const e = err as { name?: string; message?: string; meta?: { body?: { error?: EsErrorBody } } };
  const es = e.meta?.body?.error;
  const reason = typeof es?.type === 'string' ? describeEsError(es) : `${e.name ?? 'Error'}: ${e.message ?? String(err)}`;
  return reason.length > 600 ? `${reason.slice(0, 599)}…` : reason;
}
