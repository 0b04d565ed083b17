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
 * Why one controller and a plain timer: `AbortSignal.timeout` joined to the caller's signal cost a
 * second signal, two listeners and a timer the runtime keeps apart for every call; this is one
 * controller, one timer cleared with the answer, and a listener only when the caller gave a signal
 * (`AbortSignal.any` would need Node 20.3).
 */
export async function exchange(base: string, authorization: string | undefined, r: Request): Promise<Answer> {
  if (r.signal?.aborted) {
    throw r.signal.reason;
  }
  const both = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    both.abort(new DOMException(`no answer within ${r.timeoutMs} ms`, 'TimeoutError'));
  }, r.timeoutMs);
  const caller = r.signal;
  const onCaller = caller ? () => both.abort(caller.reason) : undefined;
  if (caller && onCaller) {
    caller.addEventListener('abort', onCaller, { once: true });
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
    if (timedOut) {
      throw new TransportError(`${what}: no answer within ${r.timeoutMs} ms (a write may have applied)`, true, e);
    }
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (e as Error).message;
    throw new TransportError(`${what}: ${why} (${base})`, false, e);
  } finally {
    clearTimeout(timer);
    if (caller && onCaller) {
      caller.removeEventListener('abort', onCaller);
    }
  }
}
