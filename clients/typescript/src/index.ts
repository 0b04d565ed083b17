export { Client } from './client.js';
export type {
  ClientOptions,
  CallOptions,
  ReadOptions,
  AcquireOptions,
  LeaseOptions,
  PermitOptions,
  WithLeaseOptions,
  WithPermitOptions,
  WithLeasesOptions,
} from './client.js';
export { LeaseGroupKeepAlive } from './group.js';
export type { LeaseGroup, GroupKeepAliveOptions } from './group.js';
export { Transaction } from './transaction.js';
export { LeaseKeepAlive } from './lease.js';
export type { Lease, LeaseMode, KeepAliveOptions } from './lease.js';
export { FencegateError, LockHeldError, TransportError, LeaseLostError } from './errors.js';
export type { LeaseLoss } from './errors.js';
export type { Token } from './input.js';
export type {
  Applied,
  Stale,
  AlreadyApplied,
  WriteOutcome,
  Value,
  NotFound,
  ReadOutcome,
  StatementApplied,
  StatementOutcome,
  Committed,
  Claimed,
  Refused,
  TransactionOutcome,
  ClaimOutcome,
} from './outcomes.js';
