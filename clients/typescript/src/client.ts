import { FencegateError, LockHeldError } from './errors.js';
import { exchange, type Answer, type Request } from './http.js';
import * as input from './input.js';
import type { Token } from './input.js';
import { bigintMember, parseAnswer, type JsonAnswer } from './json.js';
import { LeaseGroupKeepAlive, groupOf, type GroupKeepAliveOptions, type LeaseGroup } from './group.js';
import { LeaseKeepAlive, type KeepAliveOptions, type Lease, type LeaseMode, type Renewer } from './lease.js';
import type { ClaimOutcome, ReadOutcome, StatementOutcome, WriteOutcome, Stale, AlreadyApplied } from './outcomes.js';
import { Transaction, claimBody, claimed, committed, refused } from './transaction.js';

export interface ClientOptions {
  /** Sent as `Authorization: Bearer <key>` on every call. */
  apiKey?: string;
  /** Bound on every call, from send to the answer's last byte; default 10000. `acquire` adds its `waitMs`. */
  timeoutMs?: number;
}

export interface CallOptions {
  /** Aborts the call; it rejects with the signal's reason. Pass `lease.signal` to stop when the lease is lost. */
  signal?: AbortSignal;
  /** This call's bound instead of the client's. */
  timeoutMs?: number;
}

export interface ReadOptions extends CallOptions {
  /** Makes it a fenced read: it claims the item for this token, or is `stale` if a higher one has. */
  token?: Token;
}

export interface AcquireOptions {
  /** How long the lease lasts without a renewal: 100 ms up to the gateway's maximum (default 1 h). */
  ttlMs: number;
  /** How long to wait for a held lock; default 0. */
  waitMs?: number;
}

export interface LeaseOptions extends AcquireOptions {
  /** `'read'` shares the lock with other read leases (fenced reads only); default `'write'`. */
  mode?: LeaseMode;
}

export interface PermitOptions extends AcquireOptions {
  /** The semaphore's number of permits, 1 to 1000: fixed by its first acquire (another is a 400). */
  permits: number;
}

export type WithLeaseOptions = LeaseOptions & KeepAliveOptions;

export type WithPermitOptions = PermitOptions & KeepAliveOptions;

export type WithLeasesOptions = AcquireOptions & GroupKeepAliveOptions;

const DEFAULT_TIMEOUT_MS = 10_000;
const MIN_TTL_MS = 100;
const MAX_GROUP = 8; // locks in one lease group, the gateway's bound
const MAX_PERMITS = 1000; // the gateway's largest semaphore

/**
 * A client for the fencegate gateway's HTTP API. Share one per gateway.
 *
 * Expected outcomes are results, not errors: a held lock is a `null` acquire, a gone lease a `null`
 * renew or a `false` release, a refused token a `stale` outcome. Any other answer rejects with a
 * `FencegateError` (from the problem body); no answer within the timeout, or none at all, with a
 * `TransportError`. Bad arguments reject with a TypeError or RangeError before anything is sent.
 */
export class Client {
  readonly #base: string;
  readonly #authorization: string | undefined;
  readonly #timeoutMs: number;
  readonly #renewer: Renewer;

  constructor(url: string | URL, options: ClientOptions = {}) {
    let base: URL;
    try {
      base = new URL(url);
    } catch {
      throw new TypeError(`url must be an absolute http(s) URL, got '${String(url)}'`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new TypeError(`url must be http: or https:, got '${base.protocol}'`);
    }
    if (base.search || base.hash || base.username || base.password) {
      throw new TypeError(`url must have no query, fragment or credentials (use apiKey), got '${String(url)}'`);
    }
    const o = input.options('options', options);
    this.#base = base.href.endsWith('/') ? base.href : base.href + '/';
    if (o.apiKey !== undefined) {
      const key = input.text('options.apiKey', o.apiKey);
      if (/[\r\n]/.test(key)) {
        throw new RangeError('options.apiKey must be one line');
      }
      this.#authorization = `Bearer ${key}`;
    }
    this.#timeoutMs = o.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : input.integer('options.timeoutMs', o.timeoutMs, 1);
    this.#renewer = {
      renew: (leaseId, call) => this.renew(leaseId, call),
      release: (leaseId) => this.release(leaseId),
    };
  }

  // ---- leases --------------------------------------------------------------------------------

  /**
   * Acquires `lock`, waiting up to `waitMs`; null if it is still held then (423). `mode: 'read'`
   * takes a read lease: shared with other read leases, never with a write lease; its token makes
   * fenced reads and every write with it is refused (403 `read-token`).
   */
  async acquire(lock: string, options: LeaseOptions, call: CallOptions = {}): Promise<Lease | null> {
    input.text('lock', lock);
    const mode = leaseMode(input.options('options', options).mode);
    return this.#acquire(lock, mode === 'write' ? {} : { mode }, options, call);
  }

  /**
   * Takes one of the `permits` permits of the semaphore `semaphore`, waiting up to `waitMs` (first
   * come, first served); null if none is free then (423). A permit is a write lease on a free slot's
   * lock: `slot` is `k` in `0..permits-1` and `lock` is `{semaphore}/{k}`, guarding that item.
   */
  async acquirePermit(semaphore: string, options: PermitOptions, call: CallOptions = {}): Promise<Lease | null> {
    input.text('semaphore', semaphore);
    const permits = input.options('options', options).permits;
    if (typeof permits !== 'number' || !Number.isSafeInteger(permits)) {
      throw new TypeError(`options.permits must be an integer, got ${typeof permits}`);
    }
    if (permits < 1 || permits > MAX_PERMITS) {
      throw new RangeError(`options.permits must be 1 to ${MAX_PERMITS}, got ${permits}`);
    }
    const lease = await this.#acquire(semaphore, { permits }, options, call);
    if (lease !== null && lease.slot === undefined) {
      throw new FencegateError(201, { detail: `a permit without its slot (lock ${lease.lock})` }, 'POST /v1/leases');
    }
    return lease;
  }

  async #acquire(lock: string, shape: Record<string, unknown>, options: AcquireOptions, call: CallOptions): Promise<Lease | null> {
    const a = this.#acquireRequest(lock, shape, options, call);
    const startedAt = performance.now(); // just before the send: the keep-alive's first deadline counts from it
    const r = await this.#send(a.request);
    if (r.status === 423) {
      return null;
    }
    if (r.status !== 201) {
      throw this.#problem(r, a.request);
    }
    const j = this.#json(r, a.request);
    const token = bigintMember(j, 'token');
    const mode = j.value.mode ?? 'write';
    const slot = j.value.slot;
    if (typeof j.value.leaseId !== 'string' || token === undefined || (mode !== 'read' && mode !== 'write')
        || (slot !== undefined && !Number.isSafeInteger(slot))) {
      throw new FencegateError(r.status, { detail: `not a lease: ${r.text()}` }, 'POST /v1/leases');
    }
    return {
      lock: typeof j.value.lock === 'string' ? j.value.lock : a.lock,
      leaseId: j.value.leaseId,
      token,
      expiresAt: Number(j.value.expiresAt),
      ttlMs: a.ttlMs,
      startedAt,
      mode,
      ...(slot === undefined ? {} : { slot: slot as number }),
    };
  }

  /** Extends the lease to now + its ttl: the new expiry (epoch ms), or null if the lease is gone (410). */
  async renew(leaseId: string, call: CallOptions = {}): Promise<number | null> {
    const request = this.#request('POST', `v1/leases/${input.segment('leaseId', leaseId)}/renew`, call);
    const r = await this.#send(request);
    if (r.status === 410) {
      return null;
    }
    if (r.status !== 200) {
      throw this.#problem(r, request);
    }
    return Number(this.#json(r, request).value.expiresAt);
  }

  /** Releases the lease: true, or false if it was already gone (410). */
  async release(leaseId: string, call: CallOptions = {}): Promise<boolean> {
    const request = this.#request('DELETE', `v1/leases/${input.segment('leaseId', leaseId)}`, call);
    const r = await this.#send(request);
    if (r.status === 204 || r.status === 200) {
      return true;
    }
    if (r.status === 410) {
      return false;
    }
    throw this.#problem(r, request);
  }

  /**
   * Keeps `lease` alive until `release()`: renews it at once and then every ttl/3, and tells once
   * (its `signal`, `onLost`) if the gateway answers 410, refuses a renewal for good, or the ttl passes
   * without a confirmed renewal. A lease whose acquire answered only after its ttl is confirmed by
   * one renewal before this resolves.
   */
  async keepAlive(lease: Lease, options: KeepAliveOptions = {}): Promise<LeaseKeepAlive> {
    if (lease === null || typeof lease !== 'object' || typeof lease.leaseId !== 'string') {
      throw new TypeError('lease must be a lease from acquire()');
    }
    input.integer('lease.ttlMs', lease.ttlMs, 1);
    if (typeof lease.startedAt !== 'number') {
      throw new TypeError('lease.startedAt must be a performance.now() time');
    }
    const o = input.options('options', options);
    if (o.onLost !== undefined && typeof o.onLost !== 'function') {
      throw new TypeError('options.onLost must be a function');
    }
    return LeaseKeepAlive.start(this.#renewer, lease, options);
  }

  /**
   * Acquires `lock` (waiting up to `waitMs`), runs `work` under a keep-alive and releases the lease
   * however `work` ends: resolves to what it returns, or rejects with what it threw (a failed release
   * is then not reported). Rejects with a `LockHeldError` if the lock is still held after `waitMs`.
   * `work` should watch `lease.signal` (or check `lease.held`) between steps and stop once the lease
   * is lost; its writes carry `lease.token`, so a write made too late is refused anyway.
   */
  async withLease<T>(lock: string, options: WithLeaseOptions, work: (lease: LeaseKeepAlive) => T | Promise<T>): Promise<T> {
    checkWork(work, options);
    const lease = await this.acquire(lock, options);
    if (lease === null) {
      throw new LockHeldError(
        { detail: `lock '${lock}' still held after waiting ${options.waitMs ?? 0} ms` },
        'POST /v1/leases',
      );
    }
    return this.#keepAliveThenRun(lease, options, work);
  }

  /**
   * `withLease` for a semaphore permit (`acquirePermit`): runs `work` while the permit is kept alive
   * and releases it however `work` ends. Rejects with a `LockHeldError` if no permit is free after
   * `waitMs`. Writes go to the slot's item (`lease.slot`) with `lease.token`.
   */
  async withPermit<T>(semaphore: string, options: WithPermitOptions, work: (lease: LeaseKeepAlive) => T | Promise<T>): Promise<T> {
    checkWork(work, options);
    const lease = await this.acquirePermit(semaphore, options);
    if (lease === null) {
      throw new LockHeldError(
        { detail: `no free permit of '${semaphore}' after waiting ${options.waitMs ?? 0} ms` },
        'POST /v1/leases',
      );
    }
    return this.#keepAliveThenRun(lease, options, work);
  }

  async #keepAliveThenRun<T>(lease: Lease, o: KeepAliveOptions, work: (lease: LeaseKeepAlive) => T | Promise<T>): Promise<T> {
    let keepAlive: LeaseKeepAlive;
    try {
      keepAlive = await this.keepAlive(lease, o.onLost ? { onLost: o.onLost } : {});
    } catch (e) {
      await this.release(lease.leaseId).catch(() => false);
      throw e;
    }
    return runThenRelease(keepAlive, work);
  }

  /**
   * Acquires every lock in `locks` or none (1 to 8 distinct names), waiting up to `waitMs` in all:
   * null if one is still held then (423), and then nothing is held. The gateway takes them in one
   * canonical order, so groups that cross never deadlock. Nothing renews it: use `withLeases`, or
   * renew and release its `groupId` as a lease id.
   */
  async acquireAll(locks: readonly string[], options: AcquireOptions, call: CallOptions = {}): Promise<LeaseGroup | null> {
    if (!Array.isArray(locks)) {
      throw new TypeError(`locks must be an array of lock names, got ${typeof locks}`);
    }
    if (locks.length < 1 || locks.length > MAX_GROUP) {
      throw new RangeError(`locks must name 1 to ${MAX_GROUP} locks, got ${locks.length}`);
    }
    locks.forEach((lock, i) => input.text(`locks[${i}]`, lock));
    if (new Set(locks).size !== locks.length) {
      throw new RangeError(`locks must be distinct, got ${JSON.stringify(locks)}`);
    }
    const o = input.options('options', options);
    const ttlMs = input.integer('options.ttlMs', o.ttlMs, MIN_TTL_MS);
    const waitMs = o.waitMs === undefined ? 0 : input.integer('options.waitMs', o.waitMs, 0);
    const base = this.#request('POST', 'v1/leases', call, undefined, JSON.stringify({ locks, ttlMs, waitMs }), 'application/json');
    // The locks are taken one after another: the bound is the wait plus a timeout per lock.
    const request = { ...base, timeoutMs: base.timeoutMs * locks.length + waitMs };
    const startedAt = performance.now();
    const r = await this.#send(request);
    if (r.status === 423) {
      return null;
    }
    if (r.status !== 201) {
      throw this.#problem(r, request);
    }
    const group = groupOf(r.text(), locks, ttlMs, startedAt);
    if (group === undefined) {
      throw new FencegateError(r.status, { detail: `not a lease group: ${clip(r.text())}` }, 'POST /v1/leases');
    }
    return group;
  }

  /**
   * `withLease` for several locks: acquires every one or none (`acquireAll`), runs `work` while the
   * group is kept alive as one lease (renewed by its group id at ttl/3), and releases every member
   * however `work` ends. Rejects with a `LockHeldError` if a lock is still held after `waitMs`.
   * Losing any member loses the group: `group.signal` aborts, once. Each write carries its own
   * lock's token (`group.token(lock)`).
   */
  async withLeases<T>(locks: readonly string[], options: WithLeasesOptions, work: (group: LeaseGroupKeepAlive) => T | Promise<T>): Promise<T> {
    if (typeof work !== 'function') {
      throw new TypeError('work must be a function');
    }
    input.options('options', options);
    const o = options;
    if (o.onLost !== undefined && typeof o.onLost !== 'function') {
      throw new TypeError('options.onLost must be a function');
    }
    const group = await this.acquireAll(locks, o);
    if (group === null) {
      throw new LockHeldError(
        { detail: `a lock of ${JSON.stringify(locks)} still held after waiting ${o.waitMs ?? 0} ms` },
        'POST /v1/leases',
      );
    }
    let keepAlive: LeaseGroupKeepAlive;
    try {
      keepAlive = await LeaseGroupKeepAlive.start(this.#renewer, group, o.onLost ? { onLost: o.onLost } : {});
    } catch (e) {
      await this.release(group.groupId).catch(() => false);
      throw e;
    }
    return runThenRelease(keepAlive, work);
  }

  // ---- items ---------------------------------------------------------------------------------

  /**
   * Reads an item. With `token` it is a fenced read: it raises the item's fence to the token, so no
   * lower token can write it any more (`stale` if a higher one got there first; a missing item is
   * claimed too). Read-modify-write with a fenced read, never a plain one.
   */
  async read(store: string, key: string, options: ReadOptions = {}): Promise<ReadOutcome> {
    const o = input.options('options', options);
    const token = o.token === undefined ? undefined : input.token('options.token', o.token);
    const request = this.#request('GET', itemPath(store, key), options, token);
    const r = await this.#send(request);
    switch (r.status) {
      case 200: {
        const bytes = r.bytes;
        const written = r.fencingToken !== null && /^\d+$/.test(r.fencingToken) ? BigInt(r.fencingToken) : 0n;
        return { kind: 'value', bytes, token: written, text: () => new TextDecoder().decode(bytes) };
      }
      case 404:
        if (this.#problemKind(r) === 'not-found' || !isProblem(r)) {
          return { kind: 'not-found' };
        }
        throw this.#problem(r, request); // an unknown store is an error, not a missing item
      case 409:
        if (token !== undefined) {
          const s = this.#refusal(r, request, token);
          return { ...s, kind: 'stale' }; // a read is never "already applied"
        }
        throw this.#problem(r, request);
      default:
        throw this.#problem(r, request);
    }
  }

  /** Writes `value` (a string as UTF-8, or bytes) to `key` if `token` passes the store's guard. */
  async write(store: string, key: string, token: Token, value: string | Uint8Array | ArrayBuffer, call: CallOptions = {}): Promise<WriteOutcome> {
    const t = input.token('token', token);
    const body = input.body('value', value);
    const request = this.#request('PUT', itemPath(store, key), call, t, body, 'application/octet-stream');
    return this.#writeOutcome(await this.#send(request), request, t);
  }

  /** Deletes `key` if `token` passes the guard; the store keeps a tombstone with the token. */
  async delete(store: string, key: string, token: Token, call: CallOptions = {}): Promise<WriteOutcome> {
    const t = input.token('token', token);
    const request = this.#request('DELETE', itemPath(store, key), call, t);
    return this.#writeOutcome(await this.#send(request), request, t);
  }

  /** Runs the store's named statement (from the gateway's config) in one transaction with `key`'s guard row. */
  async statement(
    store: string,
    name: string,
    token: Token,
    key: string,
    params: Record<string, unknown> = {},
    call: CallOptions = {},
  ): Promise<StatementOutcome> {
    const t = input.token('token', token);
    input.text('key', key);
    const body = input.json('params', params);
    const path = `v1/stores/${input.segment('store', store)}/statements/${input.segment('name', name)}`;
    const request = this.#request('POST', path, call, t, `{"key":${JSON.stringify(key)},"params":${body}}`, 'application/json');
    const r = await this.#send(request);
    if (r.status === 200) {
      const j = this.#json(r, request);
      return { kind: 'applied', token: t, rows: typeof j.value.rows === 'number' ? j.value.rows : 0, body: j.value };
    }
    if (r.status === 409) {
      return this.#refusal(r, request, t);
    }
    throw this.#problem(r, request);
  }

  /**
   * Puts and deletes of several items of `store`, each with its own token, applied together or not
   * at all: add them, then `commit()`. SQL stores only (the files store refuses it: a FencegateError).
   */
  transaction(store: string): Transaction {
    const path = `v1/stores/${input.segment('store', store)}/transactions`;
    return new Transaction(async (body, call) => {
      const request = this.#request('POST', path, call, undefined, body, 'application/json');
      const r = await this.#send(request);
      const outcome = r.status === 200 ? committed(r.text()) : r.status === 409 ? refused(r.text()) : undefined;
      if (outcome === undefined) {
        throw this.#problem(r, request);
      }
      return outcome;
    });
  }

  /**
   * Fenced reads of several items in one call, `tokens` mapping each key to its token: every item's
   * fence is raised to its token and the items answered (`claimed`), or, if any item has a higher
   * fence, none is (`refused`, naming every such item).
   */
  async getAll(store: string, tokens: ReadonlyMap<string, Token> | Readonly<Record<string, Token>>, call: CallOptions = {}): Promise<ClaimOutcome> {
    const path = `v1/stores/${input.segment('store', store)}/fenced-reads`;
    const request = this.#request('POST', path, call, undefined, claimBody(tokens), 'application/json');
    const r = await this.#send(request);
    const outcome = r.status === 200 ? claimed(r.text()) : r.status === 409 ? refused(r.text()) : undefined;
    if (outcome === undefined) {
      throw this.#problem(r, request);
    }
    return outcome;
  }

  // ---- requests and answers --------------------------------------------------------------------

  #acquireRequest(lock: string, shape: Record<string, unknown>, options: AcquireOptions, call: CallOptions) {
    const o = input.options('options', options);
    const ttlMs = input.integer('options.ttlMs', o.ttlMs, MIN_TTL_MS);
    const waitMs = o.waitMs === undefined ? 0 : input.integer('options.waitMs', o.waitMs, 0);
    const body = JSON.stringify({ lock, ...shape, ttlMs, waitMs });
    const request = this.#request('POST', 'v1/leases', call, undefined, body, 'application/json');
    // The gateway may legitimately hold the request for waitMs: the bound is that plus the timeout.
    return { lock, ttlMs, request: { ...request, timeoutMs: request.timeoutMs + waitMs } };
  }

  #request(method: string, path: string, call: CallOptions, token?: bigint, body?: Uint8Array | string, contentType?: string): Request {
    const c = input.options('call options', call);
    const timeoutMs = c.timeoutMs === undefined ? this.#timeoutMs : input.integer('timeoutMs', c.timeoutMs, 1);
    const headers: Record<string, string> = {};
    if (token !== undefined) {
      headers['fencing-token'] = token.toString();
    }
    if (contentType !== undefined) {
      headers['content-type'] = contentType;
    }
    return {
      method,
      path,
      headers,
      ...(body === undefined ? {} : { body }),
      timeoutMs,
      signal: input.signal('signal', c.signal),
    };
  }

  #send(request: Request): Promise<Answer> {
    return exchange(this.#base, this.#authorization, request);
  }

  #writeOutcome(r: Answer, request: { method: string; path: string }, token: bigint): WriteOutcome {
    if (r.status === 200) {
      const j = this.#json(r, request);
      return { kind: 'applied', token: bigintMember(j, 'token') ?? token, previousToken: bigintMember(j, 'previousToken') ?? 0n };
    }
    if (r.status === 409) {
      return this.#refusal(r, request, token);
    }
    throw this.#problem(r, request);
  }

  /** A 409: stale, or already applied when the item's last write is this very token. */
  #refusal(r: Answer, request: { method: string; path: string }, token: bigint): Stale | AlreadyApplied {
    const j = this.#json(r, request);
    const currentToken = bigintMember(j, 'currentToken') ?? 0n;
    const fence = bigintMember(j, 'fence') ?? currentToken;
    return { kind: currentToken === token ? 'already-applied' : 'stale', token, currentToken, fence };
  }

  #json(r: Answer, request: { method: string; path: string }): JsonAnswer {
    try {
      return parseAnswer(r.text());
    } catch {
      throw new FencegateError(r.status, { detail: `not JSON: ${clip(r.text())}` }, `${request.method} /${request.path}`);
    }
  }

  #problemKind(r: Answer): string | undefined {
    if (!isProblem(r)) {
      return undefined;
    }
    try {
      const type = parseAnswer(r.text()).value.type;
      return typeof type === 'string' ? type.slice(type.lastIndexOf(':') + 1) : undefined;
    } catch {
      return undefined;
    }
  }

  #problem(r: Answer, request: { method: string; path: string }): FencegateError {
    const context = `${request.method} /${request.path}`;
    if (isProblem(r)) {
      try {
        return new FencegateError(r.status, parseAnswer(r.text()).value, context);
      } catch {
        // not the JSON it claims to be: report the text below
      }
    }
    return new FencegateError(r.status, { detail: clip(r.text()) }, context);
  }
}

/** Runs `work` under a kept-alive lease or group and releases it however `work` ends. */
async function runThenRelease<K extends { release(): Promise<boolean> }, T>(kept: K, work: (kept: K) => T | Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await work(kept);
  } catch (failed) {
    await kept.release().catch(() => false);
    throw failed; // the work's own failure is the one to see
  }
  await kept.release();
  return result;
}

function itemPath(store: string, key: string): string {
  return `v1/stores/${input.segment('store', store)}/items/${input.key('key', key)}`;
}

function isProblem(r: Answer): boolean {
  return r.contentType.startsWith('application/problem+json');
}

function clip(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}


function checkWork(work: unknown, options: KeepAliveOptions): void {
  if (typeof work !== 'function') {
    throw new TypeError('work must be a function');
  }
  const o = input.options('options', options);
  if (o.onLost !== undefined && typeof o.onLost !== 'function') {
    throw new TypeError('options.onLost must be a function');
  }
}

function leaseMode(mode: unknown): LeaseMode {
  if (mode === undefined) {
    return 'write';
  }
  if (mode !== 'read' && mode !== 'write') {
    throw new RangeError(`options.mode must be 'read' or 'write', got ${typeof mode === 'string' ? `'${mode}'` : typeof mode}`);
  }
  return mode;
}
