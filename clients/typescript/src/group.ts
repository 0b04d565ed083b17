import type { LeaseLoss } from './errors.js';
import { exactToken, parseExact } from './json.js';
import { LeaseKeepAlive, type Lease, type Renewer } from './lease.js';

/**
 * Leases on several locks granted together, all or none (`client.acquireAll`): one lease per lock,
 * each with a token from its own lock's sequence. `groupId` renews, releases and watches the whole
 * group where a lease id goes; `leases` are in the gateway's canonical order (UTF-8 byte order).
 */
export interface LeaseGroup {
  readonly groupId: string;
  readonly leases: readonly Lease[];
  /** The ttl the group was acquired with. */
  readonly ttlMs: number;
  /** `performance.now()` before the acquire was sent. */
  readonly startedAt: number;
}

export interface GroupKeepAliveOptions {
  /** Called once, with the reason, when the group is lost (also told by `signal`). */
  onLost?: (reason: LeaseLoss, group: LeaseGroupKeepAlive) => void;
}

/**
 * Keeps a lease group alive as one lease: renews it by its group id at ttl/3 and tells once when it
 * is lost, exactly as `LeaseKeepAlive` does for a lease. The gateway answers a renewal 410 as soon
 * as any member is gone, so losing one lock loses the group. Each lock has its own token
 * (`token(lock)`): send it with the writes guarded by that lock.
 */
export class LeaseGroupKeepAlive {
  readonly group: LeaseGroup;
  readonly #keepAlive: LeaseKeepAlive;

  private constructor(group: LeaseGroup, keepAlive: LeaseKeepAlive) {
    this.group = group;
    this.#keepAlive = keepAlive;
  }

  /** @internal Made by `Client.withLeases`. */
  static async start(client: Renewer, group: LeaseGroup, options: GroupKeepAliveOptions): Promise<LeaseGroupKeepAlive> {
    // The group id stands where a lease id goes; the acquire's send time counts for every member.
    const first = group.leases[0] as Lease;
    const asOne: Lease = {
      lock: group.leases.map((l) => l.lock).join(', '),
      leaseId: group.groupId,
      token: first.token,
      expiresAt: Math.min(...group.leases.map((l) => l.expiresAt)),
      ttlMs: group.ttlMs,
      startedAt: group.startedAt,
    };
    // A loss while starting (an answer after the whole ttl, whose renewal failed) is told once the
    // group object exists.
    let kept: LeaseGroupKeepAlive | undefined;
    let early: LeaseLoss | undefined;
    const onLost = options.onLost;
    const tell = (reason: LeaseLoss) => (kept ? onLost?.(reason, kept) : (early = reason));
    kept = new LeaseGroupKeepAlive(group, await LeaseKeepAlive.start(client, asOne, onLost ? { onLost: tell } : {}));
    if (early !== undefined) {
      onLost?.(early, kept);
    }
    return kept;
  }

  get groupId(): string {
    return this.group.groupId;
  }

  /** The locks, in the group's order. */
  get locks(): string[] {
    return this.group.leases.map((l) => l.lock);
  }

  /** Lock to token, for every member. */
  get tokens(): ReadonlyMap<string, bigint> {
    return new Map(this.group.leases.map((l) => [l.lock, l.token]));
  }

  /** The token of `lock`'s lease; a RangeError if the group holds no lease on it. */
  token(lock: string): bigint {
    const lease = this.group.leases.find((l) => l.lock === lock);
    if (lease === undefined) {
      throw new RangeError(`the group holds no lease on '${lock}' (it holds ${this.locks.join(', ')})`);
    }
    return lease.token;
  }

  /** Aborted, once, with a `LeaseLostError` when the group is lost; never if it is released first. */
  get signal(): AbortSignal {
    return this.#keepAlive.signal;
  }

  get lossReason(): LeaseLoss | undefined {
    return this.#keepAlive.lossReason;
  }

  /** As `LeaseKeepAlive.held`, for the whole group. */
  get held(): boolean {
    return this.#keepAlive.held;
  }

  get remainingMs(): number {
    return this.#keepAlive.remainingMs;
  }

  get lastError(): unknown {
    return this.#keepAlive.lastError;
  }

  /** Stops renewing and releases every member: true if this released them all, as `LeaseKeepAlive.release`. */
  release(): Promise<boolean> {
    return this.#keepAlive.release();
  }
}

/** @internal A 201 of a group acquire; undefined unless it is a group of exactly the locks asked for. */
export function groupOf(text: string, locks: readonly string[], ttlMs: number, startedAt: number): LeaseGroup | undefined {
  let j: Record<string, unknown>;
  try {
    j = parseExact(text);
  } catch {
    return undefined;
  }
  const members = Array.isArray(j.leases) ? (j.leases as Record<string, unknown>[]) : [];
  const leases: Lease[] = members.map((m) => ({
    lock: String(m.lock),
    leaseId: String(m.leaseId),
    token: exactToken(m, 'token'),
    expiresAt: Number(m.expiresAt),
    ttlMs,
    startedAt,
  }));
  if (typeof j.groupId !== 'string' || leases.length !== locks.length || leases.some((l) => l.token < 1n || !locks.includes(l.lock))) {
    return undefined;
  }
  return { groupId: j.groupId, leases, ttlMs, startedAt };
}
