import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { Client, TransportError } from '@fencegate/client';

// A stand-in server that only counts: bad input must be refused before anything is sent.
const seen = [];
let server;
let local;
before(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, headers: req.headers });
    if (req.url.startsWith('/slow/')) {
      return; // never answers
    }
    if (req.url === '/big/v1/leases') { // tokens past 2^53, and a lock name that looks like a member
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"lock":"main/\\",\\"token\\":1","leaseId":"x","token":9007199254740993,"expiresAt":1,"extra":{"token":2}}');
      return;
    }
    if (req.url.startsWith('/big/v1/stores/')) {
      res.writeHead(409, { 'content-type': 'application/problem+json' });
      res.end('{"type":"urn:fencegate:problem:stale","status":409,"currentToken":9223372036854775807,"fence":9223372036854775807}');
      return;
    }
    res.writeHead(503, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ type: 'urn:fencegate:problem:unavailable', title: 'Service Unavailable', status: 503, detail: 'issuer unreachable' }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  local = `http://127.0.0.1:${server.address().port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test('bad input is a TypeError or RangeError naming the argument, and nothing is sent', async () => {
  const client = new Client(local, { apiKey: 'k', timeoutMs: 2000 });
  const refusals = [
    [() => client.acquire('', { ttlMs: 1000 }), TypeError, /lock/],
    [() => client.acquire('main/a', { ttlMs: 99 }), RangeError, /ttlMs must be at least 100/],
    [() => client.acquire('main/a', { ttlMs: 1.5 }), TypeError, /ttlMs/],
    [() => client.acquire('main/a', { ttlMs: 1000, waitMs: -1 }), RangeError, /waitMs/],
    [() => client.acquire('main/a'), TypeError, /options/],
    [() => client.write('main', 'a', 0n, 'v'), RangeError, /token must be from 1 to 2\^63-1/],
    [() => client.write('main', 'a', -5, 'v'), RangeError, /token/],
    [() => client.write('main', 'a', 9223372036854775808n, 'v'), RangeError, /token/],
    [() => client.write('main', 'a', 2 ** 60, 'v'), RangeError, /bigint/],
    [() => client.write('main', 'a', '7', 'v'), TypeError, /token/],
    [() => client.write('main', 'a', 1n, 42), TypeError, /value/],
    [() => client.write('main', 'a', 1n, 'bad \ud800'), RangeError, /value/],
    [() => client.write('main', '../etc/passwd', 1n, 'v'), RangeError, /key must not have empty, '.' or '..' segments/],
    [() => client.write('main', 'a//b', 1n, 'v'), RangeError, /key/],
    [() => client.write('main', 'a/', 1n, 'v'), RangeError, /key/],
    [() => client.write('main', 'nul\u0000', 1n, 'v'), RangeError, /NUL/],
    [() => client.write('', 'a', 1n, 'v'), TypeError, /store/],
    [() => client.delete('main', '', 1n), TypeError, /key/],
    [() => client.read('main', 'a', { token: 0 }), RangeError, /options.token/],
    [() => client.read('main', 'a', { signal: 'stop' }), TypeError, /signal/],
    [() => client.read('main', 'a', { timeoutMs: 0 }), RangeError, /timeoutMs/],
    [() => client.statement('main', 'debit', 1n, 'a', { amount: 1n }), TypeError, /params cannot be sent as JSON/],
    [() => client.statement('main', 'debit', 1n, 'a', [1]), TypeError, /params must be an object/],
    [() => client.renew(''), TypeError, /leaseId/],
    [() => client.keepAlive({}), TypeError, /lease/],
    [() => client.withLease('main/a', { ttlMs: 1000 }), TypeError, /work/],
    [() => client.acquire('main/a', { ttlMs: 1000, mode: 'exclusive' }), RangeError, /mode must be 'read' or 'write'/],
    [() => client.withLease('main/a', { ttlMs: 1000, mode: 'READ' }, () => 1), RangeError, /mode/],
    [() => client.acquirePermit('main/pool', { ttlMs: 1000, permits: 0 }), RangeError, /permits must be 1 to 1000/],
    [() => client.acquirePermit('main/pool', { ttlMs: 1000, permits: 1001 }), RangeError, /permits/],
    [() => client.acquirePermit('main/pool', { ttlMs: 1000, permits: 1.5 }), TypeError, /permits/],
    [() => client.acquirePermit('main/pool', { ttlMs: 1000 }), TypeError, /permits/],
    [() => client.withPermit('', { ttlMs: 1000, permits: 2 }, () => 1), TypeError, /semaphore/],
    [() => client.withPermit('main/pool', { ttlMs: 99, permits: 2 }, () => 1), RangeError, /ttlMs/],
    [() => client.withPermit('main/pool', { ttlMs: 1000, permits: 2 }), TypeError, /work/],
  ];
  for (const [call, type, message] of refusals) {
    await assert.rejects(call, (e) => e instanceof type && message.test(e.message), String(call));
  }
  assert.throws(() => new Client('localhost:8080'), TypeError);
  assert.throws(() => new Client('ftp://127.0.0.1'), /http: or https:/);
  assert.throws(() => new Client('http://user:pw@127.0.0.1'), /credentials/);
  assert.throws(() => new Client(local, { timeoutMs: -1 }), RangeError);
  assert.throws(() => new Client(local, { apiKey: 'a\nb' }), /one line/);
  assert.deepEqual(seen, [], 'nothing was sent');
});

test('every call carries the API key, and a problem answer is a FencegateError', async () => {
  const client = new Client(`${local}/`, { apiKey: 'secret-key', timeoutMs: 30_000 });
  await assert.rejects(client.write('main', 'a b/c', 5n, 'v'), (e) => e.status === 503 && e.kind === 'unavailable' && e.detail === 'issuer unreachable');
  const put = seen.at(-1);
  assert.equal(put.method, 'PUT');
  assert.equal(put.url, '/v1/stores/main/items/a%20b/c');
  assert.equal(put.headers.authorization, 'Bearer secret-key');
  assert.equal(put.headers['fencing-token'], '5');
  seen.length = 0;
});

test('a call with no answer ends at its timeout with a TransportError', async () => {
  const client = new Client(`${local}/slow`, { timeoutMs: 300 });
  const started = performance.now();
  await assert.rejects(client.renew('x'), (e) => e instanceof TransportError && e.timedOut);
  assert.ok(performance.now() - started < 20_000, 'the timeout ended the call');
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = closed.address().port;
  await new Promise((resolve) => closed.close(resolve)); // a port nobody listens on
  const nobody = new Client(`http://127.0.0.1:${port}`, { timeoutMs: 30_000 });
  await assert.rejects(nobody.renew('x'), (e) => e instanceof TransportError && !e.timedOut && /ECONNREFUSED/.test(e.message));
  seen.length = 0;
});

test('a caller\'s signal aborts a call with the signal\'s reason', async () => {
  const client = new Client(`${local}/slow`, { timeoutMs: 20_000 });
  const controller = new AbortController();
  const reason = new Error('stopped by the caller');
  setTimeout(() => controller.abort(reason), 100);
  await assert.rejects(client.renew('x', { signal: controller.signal }), (e) => e === reason);
  seen.length = 0;
});

test('tokens past 2^53 are read exactly, not as the nearest double', async () => {
  const client = new Client(`${local}/big`, { timeoutMs: 30_000 });
  const lease = await client.acquire('main/","token":1', { ttlMs: 1000 });
  assert.equal(lease.token, 9007199254740993n); // JSON.parse alone reads 9007199254740992
  assert.equal(lease.lock, 'main/","token":1');
  const written = await client.write('main', 'a', 9223372036854775806n, 'v');
  assert.deepEqual(written, { kind: 'stale', token: 9223372036854775806n, currentToken: 9223372036854775807n, fence: 9223372036854775807n });
  assert.equal(seen.at(-1).headers['fencing-token'], '9223372036854775806');
  seen.length = 0;
});
