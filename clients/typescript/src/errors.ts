/** Why a kept-alive lease was given up. Told once. */
export type LeaseLoss =
  /** The gateway answered 410 to a renewal: the lease expired there, was released, or its session ended. */
  | 'gone'
  /**
   * The lease's ttl passed, on this process's monotonic clock, since the send of the last renewal
   * the gateway confirmed: renewals failed or the event loop was blocked. Told no later than the
   * gateway ends the lease (unless the gateway's clock runs faster than this process's).
   */
  | 'expired'
  /** The gateway refused a renewal with an error that retrying cannot cure (400, 401, 403). */
  | 'renew-refused';

const PROBLEM_PREFIX = 'urn:fencegate:problem:';

/**
 * The gateway answered with an error (an RFC 9457 problem). A 409 (stale) is not an error but an
 * outcome, and a 423 from `acquire` is `null`; everything else lands here.
 */
export class FencegateError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The problem type, e.g. `urn:fencegate:problem:token-not-granted` (`about:blank` if none). */
  readonly type: string;
  /** The problem's title, if it had one. */
  readonly title: string | undefined;
  /** The problem's detail, if it had one: what the gateway says went wrong. */
  readonly detail: string | undefined;
  /** The whole problem body (other members, such as `currentToken`, included). */
  readonly problem: Readonly<Record<string, unknown>>;

  constructor(status: number, problem: Record<string, unknown>, context: string) {
    const type = typeof problem.type === 'string' ? problem.type : 'about:blank';
    const detail = typeof problem.detail === 'string' ? problem.detail : undefined;
    super(`${context}: ${status} ${type}${detail ? `: ${detail}` : ''}`);
    this.name = 'FencegateError';
    this.status = status;
    this.type = type;
    this.title = typeof problem.title === 'string' ? problem.title : undefined;
    this.detail = detail;
    this.problem = problem;
  }

  /** The problem type's last part, e.g. `token-not-granted`, `lease-gone`, `unavailable`. */
  get kind(): string {
    return this.type.startsWith(PROBLEM_PREFIX) ? this.type.slice(PROBLEM_PREFIX.length) : this.type;
  }
}

/** `withLease` found the lock still held after `waitMs` (the gateway's 423). */
export class LockHeldError extends FencegateError {
  constructor(problem: Record<string, unknown>, context: string) {
    super(423, problem, context);
    this.name = 'LockHeldError';
  }
}

/**
 * No answer from the gateway: it could not be reached, the connection broke, or the call's timeout
 * passed. A write that ends so may have applied: retry it with the same token (under the default
 * `strict` rule an `already-applied` outcome then says it had).
 */
export class TransportError extends Error {
  /** True when the call's timeout passed. */
  readonly timedOut: boolean;

  constructor(message: string, timedOut: boolean, cause: unknown) {
    super(message, { cause });
    this.name = 'TransportError';
    this.timedOut = timedOut;
  }
}

/** The reason a lease's `signal` is aborted with when the lease is lost. */
export class LeaseLostError extends Error {
  readonly reason: LeaseLoss;
  readonly lock: string;
  readonly token: bigint;

  constructor(reason: LeaseLoss, lock: string, token: bigint, cause?: unknown) {
    super(`lease on ${lock} (token ${token}) lost: ${reason}`, cause === undefined ? undefined : { cause });
    this.name = 'LeaseLostError';
    this.reason = reason;
    this.lock = lock;
    this.token = token;
  }
}
