// What the tests share: the gateway under test (FENCEGATE_URL) and a shelf of stock items in its
// store `main`, each guarded by its own lock `main/{key}`.
import { Client } from '@fencegate/client';

export const url = process.env.FENCEGATE_URL;
if (!url) {
  throw new Error('FENCEGATE_URL must name the gateway under test');
}
export const client = new Client(url, { timeoutMs: 20_000 });

/** A lock name of its own for each test, so that test files can run at once against one gateway. */
export function unique(prefix) {
  return `${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Puts `value` into `key` under a lease of its own, released at once; the write's token. */
export async function stock(key, value) {
  return client.withLease(`main/${key}`, { ttlMs: 10_000, waitMs: 10_000 }, async (lease) => {
    const written = await client.write('main', key, lease.token, String(value));
    if (written.kind !== 'applied') {
      throw new Error(`could not stock ${key}: ${written.kind}`);
    }
    return lease.token;
  });
}

/** A plain read's text, or undefined for a missing item. */
export async function textOf(key) {
  const read = await client.read('main', key);
  return read.kind === 'value' ? read.text() : undefined;
}

/** Resolves when `signal` aborts; rejects after `ms`. */
export function aborted(signal, ms) {
  if (signal.aborted) {
    return Promise.resolve(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`signal not aborted within ${ms} ms`)), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve(signal.reason);
    }, { once: true });
  });
}
