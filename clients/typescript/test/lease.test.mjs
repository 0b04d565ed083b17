import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { LeaseLostError, LockHeldError } from '@fencegate/client';
import { aborted, client, stock, textOf, unique, url } from './support.mjs';

/** Keeps the event loop busy, as a long synchronous computation would. */
function busyFor(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin
  }
}

test('withLease renews at ttl/3 while the work runs: the lease outlives its ttl twice over', async () => {
  const key = unique('stock/renewed');
  await stock(key, 2);
  const written = await client.withLease(`main/${key}`, { ttlMs: 2000, waitMs: 5000 }, async (lease) => {
    await sleep(4500);
    assert.equal(lease.held, true, `lease lost: ${lease.lossReason} (${lease.lastError})`);
    assert.equal(lease.signal.aborted, false);
    return client.write('main', key, lease.token, '1');
  });
  assert.equal(written.kind, 'applied');
});

test('a busy event loop delays a renewal but, within the ttl, keeps the lease', async () => {
  const key = unique('stock/busy');
  await stock(key, 2);
  await client.withLease(`main/${key}`, { ttlMs: 10_000, waitMs: 5000 }, async (lease) => {
    busyFor(4000); // the renewal due at 3.3 s cannot run until this ends
    const before = lease.remainingMs;
    for (let i = 0; i < 100 && lease.remainingMs <= before; i++) {
      await sleep(50); // the overdue renewal runs now; a confirmed one moves the deadline on
    }
    assert.ok(lease.remainingMs > before, `no renewal moved the deadline (${lease.lossReason}, ${lease.lastError})`);
    assert.equal(lease.held, true);
    assert.equal((await client.write('main', key, lease.token, '1')).kind, 'applied');
  });
});

test('a blocked event loop past the ttl: the lease is lost, its signal fires once, the late write is refused', async () => {
  const key = unique('stock/blocked');
  const lock = `main/${key}`;
  await stock(key, 1);
  const told = [];
  let aborts = 0;
  const result = await client.withLease(lock, { ttlMs: 1000, waitMs: 5000, onLost: (reason) => told.push(reason) }, async (lease) => {
    lease.signal.addEventListener('abort', () => aborts++);
    // No await before the block: no timer has run, so no renewal has reached the gateway, and the
    // lease cannot have been lost by a slow request before the block began.

    // A rival on another thread waits for the lock; this thread blocks (no timer, no renewal can
    // run) until the rival has taken the lock after the gateway expired ours and fenced the item.
    const flag = new SharedArrayBuffer(12);
    const rival = new Worker(new URL('./rival-holder.mjs', import.meta.url), {
      workerData: { url, lock, store: 'main', key, flag },
    });
    const cell = new Int32Array(flag);
    const woke = Atomics.wait(cell, 0, 0, 40_000);
    assert.notEqual(woke, 'timed-out', 'the rival never reported');
    assert.equal(Atomics.load(cell, 0), 1, 'the rival failed (see its error above)');
    const rivalToken = (BigInt(cell[1]) << 32n) | BigInt(cell[2]);

    // The holder's first look after the block, before any timer could run (no await yet): the
    // deadline passed, so the lease is lost, at once.
    assert.equal(aborts, 0, 'no timer ran while the loop was blocked');
    assert.equal(lease.held, false);
    assert.equal(lease.signal.aborted, true);
    assert.equal(aborts, 1, 'the abort was told at the look');
    assert.ok(lease.signal.reason instanceof LeaseLostError);
    assert.equal(lease.signal.reason.reason, 'expired');
    assert.equal(lease.lossReason, 'expired');
    await rival.terminate();

    // A holder that writes anyway is refused: the rival's fenced read raised the fence.
    const late = await client.write('main', key, lease.token, '0');
    assert.equal(late.kind, 'stale');
    assert.equal(late.fence, rivalToken);
    assert.ok(late.fence > lease.token);
    return 'done';
  });
  assert.equal(result, 'done');
  await sleep(300); // any timer left over would run now
  assert.deepEqual(told, ['expired'], 'told exactly once');
  assert.equal(aborts, 1);
  assert.equal(await textOf(key), '1', 'the late write changed nothing');
});

test('withLease releases the lease when the work throws, and rethrows what it threw', async () => {
  const lock = `main/${unique('stock/throws')}`;
  let leaseId;
  const boom = new Error('boom');
  await assert.rejects(
    client.withLease(lock, { ttlMs: 30_000 }, async (lease) => {
      leaseId = lease.leaseId;
      throw boom;
    }),
    (e) => e === boom,
  );
  assert.equal(await client.renew(leaseId), null, 'the lease is gone');
  const next = await client.acquire(lock, { ttlMs: 1000, waitMs: 0 });
  assert.notEqual(next, null, 'the lock is free at once, not after the 30 s ttl');
  await client.release(next.leaseId);
});

test('a held lock: acquire answers null, withLease rejects with LockHeldError and runs nothing', async () => {
  const lock = `main/${unique('stock/held')}`;
  const first = await client.acquire(lock, { ttlMs: 10_000 });
  try {
    assert.equal(await client.acquire(lock, { ttlMs: 1000, waitMs: 100 }), null);
    let ran = false;
    await assert.rejects(
      client.withLease(lock, { ttlMs: 1000, waitMs: 100 }, () => {
        ran = true;
      }),
      (e) => e instanceof LockHeldError && e.status === 423,
    );
    assert.equal(ran, false);
  } finally {
    await client.release(first.leaseId);
  }
});

test('manual acquire, keepAlive and release; a lease released elsewhere is told as gone', async () => {
  const lock = `main/${unique('stock/manual')}`;
  const lease = await client.acquire(lock, { ttlMs: 2500 });
  const kept = await client.keepAlive(lease);
  assert.equal(kept.token, lease.token);
  await sleep(3000); // past the ttl: kept by its renewals
  assert.equal(kept.held, true);
  assert.equal(await kept.release(), true);
  assert.equal(await kept.release(), false, 'released once');
  assert.equal(kept.signal.aborted, false, 'a released lease is not a lost one');

  const other = await client.acquire(lock, { ttlMs: 2500 });
  const told = [];
  const keptOther = await client.keepAlive(other, { onLost: (reason) => told.push(reason) });
  assert.equal(await client.release(other.leaseId), true); // ended behind the keep-alive's back
  const reason = await aborted(keptOther.signal, 20_000);
  assert.equal(reason.reason, 'gone');
  assert.deepEqual(told, ['gone']);
  assert.equal(await keptOther.release(), false);
});
