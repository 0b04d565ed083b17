import { TransportError } from './errors.js';

/** One answer, read whole within the call's timeout. */
export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly fencingToken: string | null;
  readonly bytes: Uint8Array;
  text(): string;
}

export interface Request {
  readonly method: string;
  /** Path after the base URL, already encoded, without a leading '/'. */
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: Uint8Array | string;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * Sends one request with `fetch`, bounded by its timeout from the first byte sent to the last byte
 * of the answer read. A caller's signal aborts it too, and then its reason is what is thrown.
 */
export async function exchange(base: string, authorization: string | undefined, r: Request): Promise<Answer> {
  const timeout = AbortSignal.timeout(r.timeoutMs);
  const both = new AbortController();
  const abort = (s: AbortSignal) => () => both.abort(s.reason);
  const onTimeout = abort(timeout);
  const onCaller = r.signal ? abort(r.signal) : undefined;
  // AbortSignal.any needs Node 20.3: join the two by hand, and unhook them after the call.
  if (r.signal?.aborted) {
    throw r.signal.reason;
  }
  timeout.addEventListener('abort', onTimeout, { once: true });
  if (r.signal && onCaller) {
    r.signal.addEventListener('abort', onCaller, { once: true });
  }
  const headers: Record<string, string> = { ...r.headers };
  if (authorization) {
    headers.authorization = authorization;
  }
  const what = `${r.method} /${r.path}`;
  try {
    const response = await fetch(base + r.path, {
      method: r.method,
      headers,
      ...(r.body === undefined ? {} : { body: r.body as BodyInit }),
      signal: both.signal,
      redirect: 'error',
    });
    const bytes = new Uint8Array(await response.arrayBuffer());
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      fencingToken: response.headers.get('fencing-token'),
      bytes,
      text: () => new TextDecoder().decode(bytes),
    };
  } catch (e) {
    if (r.signal?.aborted && both.signal.reason === r.signal.reason) {
      throw r.signal.reason; // the caller's own abort: theirs to handle
    }
    if (timeout.aborted) {
      throw new TransportError(`${what}: no answer within ${r.timeoutMs} ms (a write may have applied)`, true, e);
    }
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (e as Error).message;
    throw new TransportError(`${what}: ${why} (${base})`, false, e);
  } finally {
    timeout.removeEventListener('abort', onTimeout);
    if (r.signal && onCaller) {
      r.signal.removeEventListener('abort', onCaller);
    }
  }
}
