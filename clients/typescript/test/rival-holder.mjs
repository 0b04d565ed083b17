// A second lease holder on a thread of its own (a worker), so it keeps running while the main
// thread's event loop is blocked: it waits for the lock, claims the item with a fenced read, releases,
// and wakes the main thread through shared memory.
import { workerData } from 'node:worker_threads';
import { Client } from '@fencegate/client';

const { url, lock, store, key, flag } = workerData;
const client = new Client(url, { timeoutMs: 20_000 });
const cell = new Int32Array(flag);
try {
  const lease = await client.acquire(lock, { ttlMs: 10_000, waitMs: 30_000 });
  if (lease === null) {
    throw new Error('the rival never got the lock');
  }
  const read = await client.read(store, key, { token: lease.token });
  await client.release(lease.leaseId);
  // The token goes through shared memory as two 32-bit halves: cells 1 and 2.
  cell[1] = Number(lease.token >> 32n);
  cell[2] = Number(lease.token & 0xffffffffn);
  Atomics.store(cell, 0, read.kind === 'stale' ? 3 : 1);
} catch (e) {
  console.error(e);
  Atomics.store(cell, 0, 2);
}
Atomics.notify(cell, 0);
