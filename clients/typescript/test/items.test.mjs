import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FencegateError } from '@fencegate/client';
import { client, stock, textOf, unique } from './support.mjs';

test('a fenced read-modify-write applies, and the read reports the last write\'s token', async () => {
  const key = unique('stock/rmw');
  const stockedWith = await stock(key, 3);
  const outcome = await client.withLease(`main/${key}`, { ttlMs: 10_000, waitMs: 5000 }, async (lease) => {
    const read = await client.read('main', key, { token: lease.token });
    assert.equal(read.kind, 'value');
    assert.equal(read.token, stockedWith);
    assert.equal(read.text(), '3');
    return client.write('main', key, lease.token, String(Number(read.text()) - 1));
  });
  assert.equal(outcome.kind, 'applied');
  assert.equal(outcome.previousToken, stockedWith);
  assert.equal(await textOf(key), '2');
});

test('a retry with the same token is recognised as already applied, and changes nothing', async () => {
  const key = unique('stock/retry');
  await client.withLease(`main/${key}`, { ttlMs: 10_000 }, async (lease) => {
    const first = await client.write('main', key, lease.token, 'first');
    assert.deepEqual(first, { kind: 'applied', token: lease.token, previousToken: 0n });
    // As after a timeout or a 5xx whose write had in fact applied:
    const retry = await client.write('main', key, lease.token, 'second');
    assert.deepEqual(retry, { kind: 'already-applied', token: lease.token, currentToken: lease.token, fence: lease.token });
  });
  assert.equal(await textOf(key), 'first');
});

test('an older token is stale after a newer holder\'s fenced read: write, delete and read are all refused', async () => {
  const key = unique('stock/stale');
  const lock = `main/${key}`;
  const older = await client.acquire(lock, { ttlMs: 10_000 });
  await client.release(older.leaseId);
  const newer = await client.acquire(lock, { ttlMs: 10_000 });
  try {
    assert.equal((await client.read('main', key, { token: newer.token })).kind, 'not-found'); // claims the missing item
    const expected = { kind: 'stale', token: older.token, currentToken: 0n, fence: newer.token };
    assert.deepEqual(await client.write('main', key, older.token, 'x'), expected);
    assert.deepEqual(await client.delete('main', key, older.token), expected);
    assert.deepEqual(await client.read('main', key, { token: older.token }), expected);
    assert.equal(await textOf(key), undefined, 'the stale holder created nothing');
  } finally {
    await client.release(newer.leaseId);
  }
});

test('a delete keeps a tombstone: a stale holder cannot bring the item back', async () => {
  const key = unique('stock/delete');
  const lock = `main/${key}`;
  const older = await client.acquire(lock, { ttlMs: 10_000 });
  await client.release(older.leaseId);
  await client.withLease(lock, { ttlMs: 10_000 }, async (lease) => {
    assert.equal((await client.write('main', key, lease.token, 'v')).kind, 'applied');
  });
  await client.withLease(lock, { ttlMs: 10_000 }, async (lease) => {
    assert.equal((await client.delete('main', key, lease.token)).kind, 'applied');
  });
  assert.deepEqual(await client.read('main', key), { kind: 'not-found' });
  assert.equal((await client.write('main', key, older.token, 'zombie')).kind, 'stale');
  assert.equal(await textOf(key), undefined);
});

test('a named statement applies once per token; the retry is already applied', async () => {
  const key = unique('stock/statement');
  await client.withLease(`main/${key}`, { ttlMs: 10_000 }, async (lease) => {
    assert.equal((await client.write('main', key, lease.token, 'v')).kind, 'applied');
  });
  await client.withLease(`main/${key}`, { ttlMs: 10_000 }, async (lease) => {
    // The statement in the gateway's config: UPDATE fencegate_item ... WHERE token = :token
    const params = { token: Number(lease.token) - 1 };
    const ran = await client.statement('main', 'touch', lease.token, key, params);
    assert.equal(ran.kind, 'applied');
    assert.equal(typeof ran.rows, 'number');
    assert.equal(ran.body.applied, true);
    const again = await client.statement('main', 'touch', lease.token, key, params);
    assert.equal(again.kind, 'already-applied');
  });
});

test('gateway errors are FencegateErrors built from the problem body', async () => {
  const key = unique('stock/errors');
  await assert.rejects(client.read('nowhere', key), (e) => {
    assert.ok(e instanceof FencegateError);
    assert.equal(e.status, 404);
    assert.equal(e.kind, 'unknown-store');
    assert.equal(e.type, 'urn:fencegate:problem:unknown-store');
    assert.match(e.detail, /nowhere/);
    return true;
  });
  // The largest token a client can send passes its checks; the gateway refuses it: never granted.
  await assert.rejects(client.write('main', key, 9223372036854775807n, 'x'), (e) => e.status === 403 && e.kind === 'token-not-granted');
  await assert.rejects(client.statement('main', 'nosuch', 1n, key), (e) => e.status === 404 && e.kind === 'unknown-statement');
  assert.equal(await client.renew('no-such-lease'), null);
});

test('keys with slashes, spaces and non-ASCII letters reach their own item', async () => {
  const key = unique('stock/dir with space/Grüße ?#%');
  await stock(key, 7);
  assert.equal(await textOf(key), '7');
  assert.deepEqual(await client.read('main', key.replace('Grüße', 'Grusse')), { kind: 'not-found' });
});
