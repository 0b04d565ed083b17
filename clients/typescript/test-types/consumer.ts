// Type-checked, never run: what a strict TypeScript user writes against the published types
// (dist/*.d.ts, reached through the package's own name and its "exports").
import {
  Client,
  FencegateError,
  LeaseLostError,
  LockHeldError,
  TransportError,
  type Lease,
  type LeaseKeepAlive,
  type LeaseMode,
  type LeaseLoss,
  type ReadOutcome,
  type StatementOutcome,
  type WriteOutcome,
  type ClaimOutcome,
  type Claimed,
  type Committed,
  type LeaseGroup,
  type LeaseGroupKeepAlive,
  type Refused,
  type Transaction,
  type TransactionOutcome,
} from '@fencegate/client';

const client = new Client('http://127.0.0.1:8080', { apiKey: 'key', timeoutMs: 5000 });

export async function sellOne(): Promise<WriteOutcome | 'sold out'> {
  return client.withLease('main/stock/widget', { ttlMs: 10_000, waitMs: 5000, onLost: (r: LeaseLoss) => void r }, async (lease) => {
    const read: ReadOutcome = await client.read('main', 'stock/widget', { token: lease.token, signal: lease.signal });
    if (read.kind === 'stale') {
      const newer: bigint = read.fence;
      return { kind: 'stale', token: lease.token, currentToken: read.currentToken, fence: newer };
    }
    const stock = read.kind === 'value' ? Number(read.text()) : 0;
    return stock > 0 && lease.held ? client.write('main', 'stock/widget', lease.token, String(stock - 1)) : 'sold out';
  });
}

export function describe(outcome: WriteOutcome | StatementOutcome): string {
  switch (outcome.kind) {
    case 'applied':
      return `applied with ${outcome.token}`;
    case 'already-applied':
      return `already applied: ${outcome.currentToken === outcome.token}`;
    case 'stale':
      return `stale: fence ${outcome.fence}`;
  }
}

export async function byHand(): Promise<boolean> {
  const lease: Lease | null = await client.acquire('main/a', { ttlMs: 1000 });
  if (lease === null) {
    return false;
  }
  const kept: LeaseKeepAlive = await client.keepAlive(lease, { onLost: (reason, k) => void [reason, k.token] });
  const expiresAt: number | null = await client.renew(lease.leaseId, { timeoutMs: 100 });
  await client.statement('main', 'debit', kept.token, 'a', { amount: 1 });
  await client.delete('main', 'a', 5, { signal: kept.signal });
  await client.write('main', 'a', 5n, new Uint8Array([1]));
  return expiresAt !== null && (await kept.release());
}

export function errors(e: unknown): string | undefined {
  if (e instanceof LockHeldError || e instanceof FencegateError) {
    return `${e.status} ${e.kind} ${e.detail ?? ''} ${String(e.problem.type)}`;
  }
  if (e instanceof TransportError) {
    return String(e.timedOut);
  }
  return e instanceof LeaseLostError ? `${e.reason} ${e.lock} ${e.token}` : undefined;
}

// @ts-expect-error a token is a bigint or a number, not a string
void client.write('main', 'a', '5', 'v');
// @ts-expect-error ttlMs is required
void client.acquire('main/a', {});
// @ts-expect-error a mode is 'read' or 'write'
void client.acquire('main/a', { ttlMs: 1000, mode: 'exclusive' });
// @ts-expect-error a permit needs its semaphore's count
void client.acquirePermit('main/pool', { ttlMs: 1000 });

export async function readLeaseAndPermit(): Promise<string> {
  const mode: LeaseMode = await client.withLease('main/a', { ttlMs: 1000, waitMs: 10, mode: 'read' }, (lease) => lease.mode);
  const slot: number | undefined = await client.withPermit('main/pool', { permits: 3, ttlMs: 1000, waitMs: 10 }, async (permit) => permit.slot);
  const bare: Lease | null = await client.acquirePermit('main/pool', { permits: 3, ttlMs: 1000 });
  const read: Lease | null = await client.acquire('main/a', { ttlMs: 1000, mode: 'read' });
  return `${mode} ${slot} ${bare?.slot} ${bare?.mode} ${read?.mode}`;
}

export async function groupAndTransaction(): Promise<string> {
  return client.withLeases(['main/a', 'main/b'], { ttlMs: 10_000, waitMs: 5000, onLost: (r: LeaseLoss, g: LeaseGroupKeepAlive) => void [r, g.groupId] }, async (group) => {
    const read: ClaimOutcome = await client.getAll('main', { a: group.token('main/a') }, { signal: group.signal });
    const tx: Transaction = client.transaction('main').put('a', group.token('main/a'), 'x').delete('b', group.token('main/b'));
    const outcome: TransactionOutcome = await tx.commit({ signal: group.signal });
    const tokens: ReadonlyMap<string, bigint> = group.tokens;
    if (outcome.kind === 'refused' || read.kind === 'refused') {
      const why: Refused = outcome.kind === 'refused' ? outcome : (read as Refused);
      return [...why.items].map(([key, stale]) => `${key}: fence ${stale.fence}`).join(', ');
    }
    const committed: Committed = outcome;
    const claimed: Claimed = read;
    const first = claimed.items.get('a');
    return `${committed.items.size} ${tokens.size} ${first?.kind === 'value' ? first.text() : 'none'}`;
  });
}

export async function groupByHand(): Promise<boolean> {
  const group: LeaseGroup | null = await client.acquireAll(['main/a'], { ttlMs: 1000 });
  return group !== null && (await client.release(group.groupId));
}
