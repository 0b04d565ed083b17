// Guarded PUTs through the Node client, or a plain fetch loop on the same route, CONCURRENCY in
// flight: run by the bench (ClientLanguages), one measurement per run.
//
//   node node_writes.mjs CLIENT_MODULE URL STORE TOKEN client|plain CONCURRENCY WARM_UP_S MEASURE_S KEYS
//
// Prints one JSON line: {"ops": N, "seconds": S, "latenciesMicros": [...]} (measured operations only).
// The plain loop is what a user writes with Node's built-in fetch: the Fencing-Token header, the
// status checked, the body read.
const [modulePath, url, store, token, mode, concurrency, warmUp, measure, keys] = process.argv.slice(2);
const { Client } = await import(modulePath);
const value = new Uint8Array(100).map((_, i) => i); // 100 bytes, as the other write benchmarks
const base = url.replace(/\/$/, '');

const client = new Client(url, { timeoutMs: 30_000 });
const put = mode === 'client'
  ? async (key) => {
      const outcome = await client.write(store, key, BigInt(token), value);
      if (outcome.kind !== 'applied') throw new Error(`not applied: ${outcome.kind}`);
    }
  : async (key) => {
      const response = await fetch(`${base}/v1/stores/${store}/items/${key}`, {
        method: 'PUT',
        headers: { 'fencing-token': token, 'content-type': 'application/octet-stream' },
        body: value,
      });
      const body = await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`PUT answered ${response.status}: ${new TextDecoder().decode(body)}`);
    };

const recordFrom = performance.now() + Number(warmUp) * 1000;
const stopAt = recordFrom + Number(measure) * 1000;
const latencies = [];
async function slot() {
  let mine = 0;
  for (;;) {
    const before = performance.now();
    if (before >= stopAt && mine > 0) return;
    await put(`k${1 + Math.floor(Math.random() * Number(keys))}`);
    if (before >= recordFrom) {
      latencies.push(Math.round((performance.now() - before) * 1000));
      mine++;
    }
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, slot));
const seconds = (Math.max(stopAt, performance.now()) - recordFrom) / 1000;
console.log(JSON.stringify({ ops: latencies.length, seconds, latenciesMicros: latencies }));
