/**
 * Checks of what a caller passes, made before anything is sent: bad input is a TypeError or a
 * RangeError that names the argument, and no request.
 */

/** A fencing token as a caller may give it: a bigint, or a number that is a safe integer. */
export type Token = bigint | number;

const MAX_TOKEN = (1n << 63n) - 1n;

export function token(name: string, t: unknown): bigint {
  if (typeof t === 'number') {
    if (!Number.isSafeInteger(t)) {
      throw new RangeError(`${name} must be an integer (a bigint beyond 2^53), got ${t}`);
    }
    t = BigInt(t);
  }
  if (typeof t !== 'bigint') {
    throw new TypeError(`${name} must be a bigint or an integer number, got ${describe(t)}`);
  }
  if (t < 1n || t > MAX_TOKEN) {
    throw new RangeError(`${name} must be from 1 to 2^63-1, got ${t}`);
  }
  return t;
}

export function integer(name: string, v: unknown, min: number): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    throw new TypeError(`${name} must be an integer number of milliseconds, got ${describe(v)}`);
  }
  if (v < min) {
    throw new RangeError(`${name} must be at least ${min}, got ${v}`);
  }
  return v;
}

export function text(name: string, v: unknown): string {
  if (typeof v !== 'string' || v.length === 0) {
    throw new TypeError(`${name} must be a non-empty string, got ${describe(v)}`);
  }
  if (v.includes('\u0000')) {
    throw new RangeError(`${name} must not contain NUL`);
  }
  if (!wellFormed(v)) {
    throw new RangeError(`${name} must be well-formed Unicode (it has a lone surrogate)`);
  }
  return v;
}

/** One path segment (a store, a statement, a lease id): '/' is encoded too. */
export function segment(name: string, v: unknown): string {
  return encodeURIComponent(text(name, v));
}

/**
 * An item key, encoded segment by segment: it may contain '/', which stays a path separator (the
 * gateway takes the rest of the path as the key). Empty, '.' and '..' segments are refused here, as
 * the gateway would refuse them.
 */
export function key(name: string, v: unknown): string {
  const k = text(name, v);
  const parts = k.split('/');
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..') {
      throw new RangeError(`${name} must not have empty, '.' or '..' segments, got '${k}'`);
    }
  }
  return parts.map((p) => encodeURIComponent(p)).join('/');
}

/** A value to write: a string (sent as UTF-8) or bytes. */
export function body(name: string, v: unknown): Uint8Array {
  if (typeof v === 'string') {
    if (!wellFormed(v)) {
      throw new RangeError(`${name} must be well-formed Unicode (it has a lone surrogate)`);
    }
    return new TextEncoder().encode(v);
  }
  if (v instanceof Uint8Array) {
    return v;
  }
  if (v instanceof ArrayBuffer) {
    return new Uint8Array(v);
  }
  throw new TypeError(`${name} must be a string, a Uint8Array or an ArrayBuffer, got ${describe(v)}`);
}

export function json(name: string, v: unknown): string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new TypeError(`${name} must be an object, got ${describe(v)}`);
  }
  try {
    return JSON.stringify(v);
  } catch (e) {
    throw new TypeError(`${name} cannot be sent as JSON: ${(e as Error).message}`);
  }
}

export function signal(name: string, v: unknown): AbortSignal | undefined {
  if (v === undefined) {
    return undefined;
  }
  if (!(v instanceof AbortSignal)) {
    throw new TypeError(`${name} must be an AbortSignal, got ${describe(v)}`);
  }
  return v;
}

export function options(name: string, v: unknown): Record<string, unknown> {
  if (v === undefined) {
    return {};
  }
  if (v === null || typeof v !== 'object') {
    throw new TypeError(`${name} must be an object, got ${describe(v)}`);
  }
  return v as Record<string, unknown>;
}

function wellFormed(s: string): boolean {
  try {
    encodeURIComponent(s); // throws URIError on a lone surrogate (String#isWellFormed needs Node 20)
    return true;
  } catch {
    return false;
  }
}

function describe(v: unknown): string {
  if (typeof v === 'string') {
    return `'${v}'`;
  }
  if (typeof v === 'bigint') {
    return `${v}n`;
  }
  return v === null ? 'null' : typeof v === 'object' ? (v.constructor?.name ?? 'object') : `${typeof v} ${String(v)}`;
}
