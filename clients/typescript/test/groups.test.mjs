import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { Client, LockHeldError } from '@fencegate/client';
import { client, textOf, unique } from './support.mjs';

// Lease groups, transactions across items and fenced multi-reads, against the gateway's SQL store.

test('a group is granted, renewed by its id and released together', async () => {
  const a = unique('group/a');
  const b = unique('group/b');
  const locks = [`main/${a}`, `main/${b}`];
  // A ttl of 4.5 s renewed every 1.5 s: a loaded machine (load 40 here: a 3 s ttl was lost) has 3 s
  // for a renewal's round trip.
  const group = await client.withLeases(locks, { ttlMs: 4500, waitMs: 5000 }, async (group) => {
    assert.ok(group.groupId.startsWith('lg1~'), group.groupId);
    assert.deepEqual([...group.tokens.keys()].sort(), [...locks].sort());
    await new Promise((resolve) => setTimeout(resolve, 5000)); // past the ttl: only renewals keep it
    assert.equal(group.held, true, `lost: ${group.lossReason} ${String(group.lastError ?? '')}`);
    assert.equal(group.signal.aborted, false);
    assert.equal(await client.acquire(locks[1], { ttlMs: 1000 }), null, 'every member is still held');
    await assert.rejects(client.withLeases(locks, { ttlMs: 1000 }, () => 'never'), LockHeldError);
    for (const key of [a, b]) {
      assert.equal((await client.write('main', key, group.token(`main/${key}`), '1')).kind, 'applied');
    }
    return group;
  });
  assert.equal(group.held, false);
  assert.equal(group.lossReason, undefined, 'a release is no loss');
  for (const lock of locks) {
    const after = await client.acquire(lock, { ttlMs: 5000 });
    assert.ok(after, `${lock} released on the way out, not left to its ttl`);
    await client.release(after.leaseId);
  }
});

test('a stale token refuses the whole transaction and is named; good tokens then commit', async () => {
  const a = unique('tx/a');
  const b = unique('tx/b');
  const older = await client.acquire(`main/${a}`, { ttlMs: 5000 });
  await client.release(older.leaseId);
  await client.withLeases([`main/${a}`, `main/${b}`], { ttlMs: 10_000, waitMs: 5000 }, async (group) => {
    const ta = group.token(`main/${a}`);
    const tb = group.token(`main/${b}`);
    assert.equal((await client.read('main', a, { token: ta })).kind, 'not-found'); // claims a for ta
    const refused = await client.transaction('main').put(b, tb, '9').put(a, older.token, 'x').commit({ signal: group.signal });
    assert.deepEqual(refused, { kind: 'refused', items: new Map([[a, { kind: 'stale', token: older.token, currentToken: 0n, fence: ta }]]) });
    assert.equal(await textOf(b), undefined, "b's put was not applied");
    // Under strict a token writes an item once: had b's put applied, this would be refused.
    const done = await client.transaction('main').put(a, ta, '4').put(b, tb, new Uint8Array([57])).commit();
    assert.deepEqual(done, {
      kind: 'committed',
      items: new Map([[a, { kind: 'applied', token: ta, previousToken: 0n }], [b, { kind: 'applied', token: tb, previousToken: 0n }]]),
    });
    assert.equal(await textOf(a), '4');
    assert.equal(await textOf(b), '9');
  });
});

test('a fenced multi-read claims every item: a lower token then writes nothing', async () => {
  const a = unique('claim/a');
  const b = unique('claim/b');
  const writer = await client.acquire(`main/${a}`, { ttlMs: 5000 });
  assert.equal((await client.write('main', a, writer.token, 'old')).kind, 'applied');
  await client.release(writer.leaseId);
  const older = await client.acquire(`main/${a}`, { ttlMs: 5000 }); // a lower token than the group's, unused
  await client.release(older.leaseId);
  await client.withLeases([`main/${a}`, `main/${b}`], { ttlMs: 10_000, waitMs: 5000 }, async (group) => {
    const ta = group.token(`main/${a}`);
    const read = await client.getAll('main', { [a]: ta, [b]: group.token(`main/${b}`) });
    assert.equal(read.kind, 'claimed');
    assert.equal(read.items.get(a).kind, 'value');
    assert.equal(read.items.get(a).text(), 'old');
    assert.equal(read.items.get(a).token, writer.token);
    assert.deepEqual(read.items.get(b), { kind: 'not-found' });
    const stale = { kind: 'stale', token: older.token, currentToken: writer.token, fence: ta };
    assert.deepEqual(await client.write('main', a, older.token, 'late'), stale);
    assert.deepEqual(await client.getAll('main', new Map([[a, older.token]])), { kind: 'refused', items: new Map([[a, stale]]) });
  });
  assert.equal(await textOf(a), 'old');
});

test('bad groups, transactions and multi-reads throw naming the argument, and nothing is sent', async () => {
  let seen = 0;
  const server = createServer((req, res) => {
    seen++;
    res.writeHead(503).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const c = new Client(`http://127.0.0.1:${server.address().port}`, { timeoutMs: 2000 });
    const ok = { ttlMs: 1000 };
    await assert.rejects(c.withLeases('main/a', ok, () => 1), /locks must be an array/);
    await assert.rejects(c.acquireAll([], ok), /1 to 8 locks/);
    await assert.rejects(c.acquireAll(['main/a', 'main/a'], ok), /distinct/);
    await assert.rejects(c.acquireAll(Array.from({ length: 9 }, (_, i) => `main/${i}`), ok), /1 to 8 locks/);
    await assert.rejects(c.acquireAll(['main/a', ''], ok), /locks\[1\]/);
    await assert.rejects(c.acquireAll(['main/a'], { ttlMs: 5 }), /ttlMs/);
    await assert.rejects(c.withLeases(['main/a'], ok, 'not a function'), /work must be a function/);
    await assert.rejects(c.transaction('main').commit(), /at least one/);
    assert.throws(() => c.transaction('main').put('k', 1n, 'v').delete('k', 2n), /already in this transaction/);
    assert.throws(() => c.transaction('main').put('k', 0n, 'v'), RangeError);
    assert.throws(() => c.transaction('main').delete('a/../b', 1n), /key/);
    assert.throws(() => c.transaction('main').put('k', 1n, 5), /value/);
    assert.throws(() => c.transaction(''), /store/);
    await assert.rejects(c.getAll('main', {}), /at least one/);
    await assert.rejects(c.getAll('main', { k: '5' }), /token of 'k'/);
    await assert.rejects(c.getAll('main', [['k', 1n]]), /Map or an object/);
    await assert.rejects(c.getAll('main', new Map([['a//b', 1n]])), /key/);
    assert.equal(seen, 0);
  } finally {
    server.close();
  }
});

test('tokens nested in group and refusal answers are read exactly, past 2^53', async () => {
  const big = '9223372036854775807';
  const server = createServer((req, res) => {
    res.writeHead(req.url === '/v1/leases' ? 201 : 409, {
      'content-type': req.url === '/v1/leases' ? 'application/json' : 'application/problem+json',
    });
    res.end(req.url === '/v1/leases'
      ? `{"groupId":"lg1~x","expiresAt":1,"leases":[{"lock":"main/\\",\\"token\\":1","leaseId":"l","token":${big},"expiresAt":1}]}`
      : `{"type":"urn:fencegate:problem:stale","refused":[{"key":"k","token":9007199254740993,"currentToken":${big},"fence":${big}}]}`);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const c = new Client(`http://127.0.0.1:${server.address().port}`, { timeoutMs: 2000 });
    const group = await c.acquireAll(['main/",\"token":1'], { ttlMs: 1000 });
    assert.equal(group.leases[0].token, BigInt(big));
    assert.equal(group.leases[0].lock, 'main/",\"token":1');
    const refused = await c.transaction('main').put('k', 9007199254740993n, 'v').commit();
    assert.deepEqual(refused.items.get('k'), { kind: 'stale', token: 9007199254740993n, currentToken: BigInt(big), fence: BigInt(big) });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
