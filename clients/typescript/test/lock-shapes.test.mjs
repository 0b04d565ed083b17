import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FencegateError, LockHeldError } from '@fencegate/client';
import { client, stock, textOf, unique } from './support.mjs';

// Read leases and semaphore permits against the real gateway.

test('two read leases share a lock, make fenced reads and keep a writer out until both end', async () => {
  const key = unique('shapes/shared');
  const lock = `main/${key}`;
  await client.withLease(lock, { ttlMs: 10_000, mode: 'read' }, async (first) => {
    await client.withLease(lock, { ttlMs: 10_000, mode: 'read' }, async (second) => {
      assert.deepEqual([first.mode, second.mode, first.held, second.held], ['read', 'read', true, true]);
      assert.equal(first.slot, undefined);
      assert.ok(second.token > first.token, 'every grant takes the lock\'s next token');
      assert.equal((await client.read('main', key, { token: second.token })).kind, 'not-found', 'a fenced read');
      assert.equal(await client.acquire(lock, { ttlMs: 5000 }), null, 'no writer beside readers');
    });
  });
  const writer = await client.acquire(lock, { ttlMs: 5000, waitMs: 5000 });
  assert.ok(writer, 'both read leases were released');
  assert.equal(writer.mode, 'write');
  await client.release(writer.leaseId);
});

test('a read token is refused 403 read-token on every write, and nothing changes', async () => {
  const key = unique('shapes/read-token');
  const written = await stock(key, 'before');
  const refusedAsReadToken = (e) => e instanceof FencegateError && e.status === 403
    && e.type === 'urn:fencegate:problem:read-token' && e.kind === 'read-token';
  await client.withLease(`main/${key}`, { ttlMs: 10_000, waitMs: 5000, mode: 'read' }, async (reader) => {
    await assert.rejects(client.write('main', key, reader.token, 'after'), refusedAsReadToken);
    await assert.rejects(client.delete('main', key, reader.token), refusedAsReadToken);
  });
  const read = await client.read('main', key);
  assert.equal(read.kind, 'value');
  assert.equal(read.text(), 'before');
  assert.equal(read.token, written, 'the last write is still the write lease\'s');
});

test('a permit takes slot 0 then 1; the third waits, then gets none; another count is 400', async () => {
  const semaphore = `main/${unique('shapes/pool')}`;
  const options = { permits: 2, ttlMs: 10_000 };
  await client.withPermit(semaphore, options, async (p0) => {
    await client.withPermit(semaphore, options, async (p1) => {
      assert.deepEqual([p0.slot, p0.lock, p0.mode], [0, `${semaphore}/0`, 'write']);
      assert.deepEqual([p1.slot, p1.lock, p1.mode], [1, `${semaphore}/1`, 'write']);
      const slotKey = `${semaphore.slice('main/'.length)}/1`;
      assert.equal((await client.write('main', slotKey, p1.token, 'busy')).kind, 'applied', 'a permit writes its slot\'s item');
      let ran = false;
      await assert.rejects(client.withPermit(semaphore, { ...options, waitMs: 300 }, () => { ran = true; }), LockHeldError);
      assert.equal(ran, false);
      assert.equal(await client.acquirePermit(semaphore, options), null);
      await assert.rejects(client.acquirePermit(semaphore, { ...options, permits: 3 }), (e) => e instanceof FencegateError && e.status === 400);
    });
  });
  const again = await client.acquirePermit(semaphore, { ...options, waitMs: 5000 });
  assert.equal(again.slot, 0, 'both permits were released');
  await client.release(again.leaseId);
  assert.equal(await textOf(`${semaphore.slice('main/'.length)}/1`), 'busy');
});
