import * as input from './input.js';
import type { Token } from './input.js';
import { exactToken, parseExact } from './json.js';
import type { Applied, Claimed, NotFound, Refused, Stale, TransactionOutcome, Value } from './outcomes.js';
import type { CallOptions } from './client.js';

/** What a transaction needs of the client: send its body, answer its outcome. */
export type Committer = (body: string, call: CallOptions) => Promise<TransactionOutcome>;

/**
 * Puts and deletes of several items of one store, each with its own token, applied together or not
 * at all (`POST /v1/stores/{store}/transactions`). Made by `client.transaction(store)`; add items,
 * then `commit()`:
 *
 * ```js
 * const outcome = await client.transaction('main')
 *   .put('stock/a', group.token('main/stock/a'), '4')
 *   .delete('holds/r-17', group.token('main/holds/r-17'))
 *   .commit();
 * if (outcome.kind === 'refused') { ... outcome.items: key -> stale ... }
 * ```
 *
 * Each item is checked as it is added (a TypeError or RangeError, nothing sent); a key may appear once.
 */
export class Transaction {
  readonly #commit: Committer;
  readonly #ops: string[] = [];
  readonly #keys = new Set<string>();

  /** @internal Made by `Client.transaction`. */
  constructor(commit: Committer) {
    this.#commit = commit;
  }

  /** Writes `value` (a string as UTF-8, or bytes) to `key` if `token` passes its guard. */
  put(key: string, token: Token, value: string | Uint8Array | ArrayBuffer): this {
    const op = this.#op('put', key, token);
    const bytes = input.body('value', value);
    this.#ops.push(`${op},"valueBase64":"${base64(bytes)}"}`);
    return this;
  }

  /** Deletes `key` (a tombstone keeps the token) if `token` passes its guard. */
  delete(key: string, token: Token): this {
    this.#ops.push(`${this.#op('delete', key, token)}}`);
    return this;
  }

  /** How many items it holds. */
  get size(): number {
    return this.#ops.length;
  }

  /** Sends it: `committed` (every item applied) or `refused` (none, naming every refused item). */
  async commit(call: CallOptions = {}): Promise<TransactionOutcome> {
    if (this.#ops.length === 0) {
      throw new RangeError('a transaction needs at least one put or delete');
    }
    return this.#commit(`{"ops":[${this.#ops.join(',')}]}`, call);
  }

  #op(kind: string, key: string, token: Token): string {
    input.key('key', key);
    const t = input.token('token', token);
    if (this.#keys.has(key)) {
      throw new RangeError(`key '${key}' is already in this transaction (each item once)`);
    }
    this.#keys.add(key);
    return `{"op":"${kind}","key":${JSON.stringify(key)},"token":${t}`;
  }
}

/** A fenced multi-read's body, every key and token checked first. */
export function claimBody(tokens: ReadonlyMap<string, Token> | Readonly<Record<string, Token>>): string {
  if (tokens === null || typeof tokens !== 'object' || Array.isArray(tokens)) {
    throw new TypeError('tokens must be a Map or an object of key to token');
  }
  const entries = tokens instanceof Map ? [...tokens.entries()] : Object.entries(tokens);
  if (entries.length === 0) {
    throw new RangeError('tokens must name at least one key');
  }
  const items = entries.map(([key, token]) => {
    input.key('key', key);
    return `{"key":${JSON.stringify(key)},"token":${input.token(`token of '${key}'`, token)}}`;
  });
  return `{"items":[${items.join(',')}]}`;
}

/** A 200 of a transaction; undefined if it is not the expected shape. */
export function committed(text: string): TransactionOutcome | undefined {
  const items = members(text, 'items');
  if (items === undefined) {
    return undefined;
  }
  const applied = new Map<string, Applied>();
  for (const i of items) {
    applied.set(i.key as string, { kind: 'applied', token: exactToken(i, 'token'), previousToken: exactToken(i, 'previousToken') });
  }
  return { kind: 'committed', items: applied };
}

/** A 200 of a fenced multi-read; undefined if it is not the expected shape. */
export function claimed(text: string): Claimed | undefined {
  const items = members(text, 'items');
  if (items === undefined) {
    return undefined;
  }
  const read = new Map<string, Value | NotFound>();
  for (const i of items) {
    if (i.found === true) {
      const bytes = fromBase64(typeof i.valueBase64 === 'string' ? i.valueBase64 : '');
      read.set(i.key as string, { kind: 'value', bytes, token: exactToken(i, 'token'), text: () => new TextDecoder().decode(bytes) });
    } else {
      read.set(i.key as string, { kind: 'not-found' });
    }
  }
  return { kind: 'claimed', items: read };
}

/** A 409 listing every refused item; undefined for any other 409 (then it is a problem). */
export function refused(text: string): Refused | undefined {
  const items = members(text, 'refused');
  if (items === undefined || items.length === 0) {
    return undefined;
  }
  const stale = new Map<string, Stale>();
  for (const i of items) {
    const currentToken = exactToken(i, 'currentToken');
    stale.set(i.key as string, { kind: 'stale', token: exactToken(i, 'token'), currentToken, fence: i.fence === undefined ? currentToken : exactToken(i, 'fence') });
  }
  return { kind: 'refused', items: stale };
}

function members(text: string, name: string): Record<string, unknown>[] | undefined {
  let list: unknown;
  try {
    list = parseExact(text)[name];
  } catch {
    return undefined;
  }
  if (!Array.isArray(list) || !list.every((i) => i !== null && typeof i === 'object' && typeof i.key === 'string')) {
    return undefined;
  }
  return list as Record<string, unknown>[];
}

// btoa and atob: global since Node 16, and no Buffer in the package's types (it runs on fetch alone).
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) {
    bytes[i] = binary.charCodeAt(i);
  }
  return bytes;
}
