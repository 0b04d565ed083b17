import { FencegateError, LeaseLostError, type LeaseLoss } from './errors.js';

/** `'write'`: the exclusive lease. `'read'`: shared with other read leases; its token never writes. */
export type LeaseMode = 'read' | 'write';

/**
 * A granted lease: use of `lock` (exclusive for a write lease), proven to stores by `token`.
 *
 * `startedAt` is this process's `performance.now()` taken just before the acquire was sent: the
 * gateway cannot have granted the lease earlier, so a keep-alive's first deadline is that moment
 * plus the ttl. It is local to this process, not part of the gateway's answer.
 */
export interface Lease {
  readonly lock: string;
  readonly leaseId: string;
  readonly token: bigint;
  /** The gateway's expiry, epoch milliseconds by the gateway's clock. */
  readonly expiresAt: number;
  /** The ttl the lease was acquired with. */
  readonly ttlMs: number;
  /** `performance.now()` before the acquire was sent. */
  readonly startedAt: number;
  /**
   * `'write'`, or `'read'` for a read lease: its token makes fenced reads, and every write with it
   * is refused (403 `read-token`). Absent on a lease built by hand: a write lease.
   */
  readonly mode?: LeaseMode;
  /** A semaphore permit's slot `k` (`lock` is then `{semaphore}/{k}`); absent for any other lease. */
  readonly slot?: number;
}

/** What a keep-alive needs of the client (kept narrow so the two files do not import each other). */
export interface Renewer {
  /** The new expiry, null if the lease is gone (410); throws on any other failure. */
  renew(leaseId: string, options: { signal: AbortSignal }): Promise<number | null>;
  release(leaseId: string): Promise<boolean>;
}

export interface KeepAliveOptions {
  /** Called once, with the reason, when the lease is lost (also told by `signal`). */
  onLost?: (reason: LeaseLoss, lease: LeaseKeepAlive) => void;
}

const MIN_RETRY_MS = 20;

/**
 * Keeps a lease alive: renews it at ttl/3 and tells once when it is lost, by aborting `signal` with
 * a `LeaseLostError` and calling `onLost`. `release()` stops renewing and releases the lease.
 *
 * Why a local deadline as well as the gateway's 410: a holder whose renewals cannot get through, or
 * whose event loop was blocked, must stop before the gateway hands the lock on, not when it next
 * hears from the gateway. The deadline is the send time of the last confirmed renewal (at first,
 * of the acquire) plus the ttl, on `performance.now()`, which does not step with the wall clock. A
 * timer cannot fire while the event loop is blocked, so the deadline is also checked wherever the
 * holder looks (`held`, `remainingMs`, `release`) and before each renewal: a renewal due after the
 * deadline is not sent, the lease is lost. Writes stay fenced either way; this is how the holder
 * learns to stop early.
 */
export class LeaseKeepAlive {
  readonly lease: Lease;
  readonly #client: Renewer;
  readonly #ttlMs: number;
  readonly #onLost: KeepAliveOptions['onLost'];
  readonly #lost = new AbortController();
  #deadline: number;
  #closed = false;
  #lossReason: LeaseLoss | undefined;
  #renewTimer: ReturnType<typeof setTimeout> | undefined;
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: AbortController | undefined;
  #lastError: unknown;

  private constructor(client: Renewer, lease: Lease, options: KeepAliveOptions) {
    this.#client = client;
    this.lease = lease;
    this.#ttlMs = lease.ttlMs;
    this.#onLost = options.onLost;
    this.#deadline = lease.startedAt + lease.ttlMs;
  }

  /** @internal Made by `Client.keepAlive` and `Client.withLease`. */
  static async start(client: Renewer, lease: Lease, options: KeepAliveOptions): Promise<LeaseKeepAlive> {
    const k = new LeaseKeepAlive(client, lease, options);
    if (performance.now() >= k.#deadline) {
      // The answer came after the ttl had run out since the acquire's send (a wait longer than the
      // ttl, or a blocked loop): only a renewal sent now can show the lease is still ours.
      const sentAt = performance.now();
      k.#deadline = sentAt; // renewed() moves it on if the gateway confirms
      await k.#renewFrom(sentAt);
      k.#reportIfExpired(); // not confirmed: never held it for sure
    } else {
      k.#schedule(0);
    }
    if (k.#lossReason === undefined) {
      k.#armExpiry();
    }
    return k;
  }

  get token(): bigint {
    return this.lease.token;
  }

  get lock(): string {
    return this.lease.lock;
  }

  get leaseId(): string {
    return this.lease.leaseId;
  }

  /** `'write'` (exclusive) or `'read'` (shared; its token never writes). */
  get mode(): LeaseMode {
    return this.lease.mode ?? 'write';
  }

  /** A semaphore permit's slot (`lock` is its lock); undefined for any other lease. */
  get slot(): number | undefined {
    return this.lease.slot;
  }

  /** Aborted, once, with a `LeaseLostError` when the lease is lost; never if it is released first. */
  get signal(): AbortSignal {
    this.#reportIfExpired();
    return this.#lost.signal;
  }

  /** Why the lease was lost, or undefined while it is not. */
  get lossReason(): LeaseLoss | undefined {
    this.#reportIfExpired();
    return this.#lossReason;
  }

  /**
   * True while the lease is neither lost nor released and its ttl has not passed since the last
   * confirmed renewal. Finding the deadline passed reports the loss here and now.
   */
  get held(): boolean {
    this.#reportIfExpired();
    return !this.#closed && this.#lossReason === undefined && performance.now() < this.#deadline;
  }

  /** How long the lease surely lasts without another renewal; 0 once lost or released. */
  get remainingMs(): number {
    return this.held ? Math.max(0, this.#deadline - performance.now()) : 0;
  }

  /** The last renewal's error (unreachable, timeout, 5xx), if the last renewal failed. */
  get lastError(): unknown {
    return this.#lastError;
  }

  /**
   * Stops renewing and releases the lease. True if this released it; false if it was lost or
   * released before. After a loss the release is still tried (the gateway may not have ended it yet,
   * and releasing frees the lock sooner) and its failure ignored; otherwise a failed release rejects.
   */
  async release(): Promise<boolean> {
    this.#reportIfExpired(); // a lease that ended before its release is a lost one, and is told so
    if (this.#closed) {
      return false;
    }
    this.#closed = true;
    this.#stopTimers();
    if (this.#lossReason === undefined) {
      return this.#client.release(this.lease.leaseId);
    }
    if (this.#lossReason !== 'gone') {
      try {
        await this.#client.release(this.lease.leaseId);
      } catch {
        // the lease is over for us either way; the gateway ends it at its ttl
      }
    }
    return false;
  }

  // ---- renewals ------------------------------------------------------------------------------

  #schedule(delayMs: number): void {
    this.#renewTimer = unref(setTimeout(() => void this.#renew(), Math.max(0, delayMs)));
  }

  async #renew(): Promise<void> {
    this.#renewTimer = undefined;
    if (this.#closed || this.#lossReason !== undefined) {
      return;
    }
    const sentAt = performance.now();
    if (sentAt >= this.#deadline) {
      this.#lose('expired'); // too late to renew: the gateway may already have handed the lock on
      return;
    }
    await this.#renewFrom(sentAt);
  }

  async #renewFrom(sentAt: number): Promise<void> {
    let expiresAt: number | null = null;
    let error: unknown;
    const inFlight = new AbortController();
    this.#inFlight = inFlight;
    try {
      expiresAt = await this.#client.renew(this.lease.leaseId, { signal: inFlight.signal });
    } catch (e) {
      error = e;
    } finally {
      this.#inFlight = undefined;
    }
    if (this.#closed || this.#lossReason !== undefined || inFlight.signal.aborted) {
      return;
    }
    if (error === undefined && expiresAt === null) {
      this.#lose('gone');
      return;
    }
    if (error instanceof FencegateError && !retryable(error.status)) {
      this.#lastError = error;
      this.#lose('renew-refused', error);
      return;
    }
    if (error === undefined) {
      this.#lastError = undefined;
      this.#deadline = Math.max(this.#deadline, sentAt + this.#ttlMs);
      this.#schedule(sentAt + this.#ttlMs / 3 - performance.now());
    } else {
      // Transient (unreachable, timeout, 5xx): try again soon; the expiry timer ends it in time.
      this.#lastError = error;
      this.#schedule(Math.max(MIN_RETRY_MS, this.#ttlMs / 10));
    }
  }

  /** Fires at the deadline; re-arms itself when a renewal has moved the deadline on. */
  #armExpiry(): void {
    this.#expiryTimer = unref(
      setTimeout(() => {
        this.#expiryTimer = undefined;
        if (this.#closed || this.#lossReason !== undefined) {
          return;
        }
        if (performance.now() >= this.#deadline) {
          this.#lose('expired');
        } else {
          this.#armExpiry();
        }
      }, Math.max(0, this.#deadline - performance.now())),
    );
  }

  #reportIfExpired(): void {
    if (!this.#closed && this.#lossReason === undefined && performance.now() >= this.#deadline) {
      this.#lose('expired');
    }
  }

  #lose(reason: LeaseLoss, cause?: unknown): void {
    if (this.#closed || this.#lossReason !== undefined) {
      return; // told once: the first reason wins
    }
    this.#lossReason = reason;
    this.#stopTimers();
    this.#lost.abort(new LeaseLostError(reason, this.lease.lock, this.lease.token, cause));
    if (this.#onLost) {
      try {
        this.#onLost(reason, this);
      } catch (e) {
        // A listener's failure must not stop the keep-alive's bookkeeping; surface it unhandled.
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }

  #stopTimers(): void {
    clearTimeout(this.#renewTimer);
    clearTimeout(this.#expiryTimer);
    this.#renewTimer = undefined;
    this.#expiryTimer = undefined;
    this.#inFlight?.abort();
  }
}

/** 408, 429 and 5xx may pass; any other 4xx (bad key, forbidden) will not. */
function retryable(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** Node's timers keep the process alive; a keep-alive should not (like a daemon thread). */
function unref<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
