#!/usr/bin/env node
// Sells units of one item through the fencegate gateway, with @fencegate/client.
//
// Each sale takes a lease (withLease: renewed while it runs, released however it ends), does a
// fenced read of the stock (it claims the item for this lease's token), then a token-guarded write
// of the stock minus one. A stale outcome means a newer lease holder has claimed or written the
// item: stop, never retry with the same token.
//
//     node sell.mjs http://127.0.0.1:8080 main stock/widget [units]
import { Client } from '@fencegate/client';

const [url, store, key, units = '1'] = process.argv.slice(2);
if (!url || !store || !key) {
  console.error('usage: node sell.mjs http://127.0.0.1:8080 main stock/widget [units]');
  process.exit(2);
}
const client = new Client(url, { timeoutMs: 10_000 });

/** One sale under a lease of its own: 'sold', 'sold out', or the stale outcome that stopped it. */
async function sellOne() {
  // The lock guarding an item is {store}/{key}.
  return client.withLease(`${store}/${key}`, { ttlMs: 10_000, waitMs: 10_000 }, async (lease) => {
    const read = await client.read(store, key, { token: lease.token, signal: lease.signal });
    if (read.kind === 'stale') {
      return read;
    }
    const stock = read.kind === 'value' ? Number(read.text()) : 0;
    if (stock <= 0) {
      return 'sold out';
    }
    if (!lease.held) {
      throw lease.signal.reason; // lost while reading: the next holder may already own the item
    }
    const written = await client.write(store, key, lease.token, String(stock - 1), { signal: lease.signal });
    if (written.kind !== 'applied') {
      return written;
    }
    console.log(`sold 1 with token ${lease.token}, stock now ${stock - 1} (previous write: token ${written.previousToken})`);
    return 'sold';
  });
}

let sold = 0;
while (sold < Number(units)) {
  const outcome = await sellOne();
  if (outcome === 'sold out') {
    break;
  }
  if (outcome !== 'sold') {
    console.log(`stopping: a newer holder has claimed ${key} (its fence: ${outcome.fence})`);
    break;
  }
  sold++;
}
console.log(`done: sold ${sold}`);
