export { Client } from './client.js';
export type { ClientOptions, CallOptions, ReadOptions, AcquireOptions, WithLeaseOptions } from './client.js';
export { LeaseKeepAlive } from './lease.js';
export type { Lease, KeepAliveOptions } from './lease.js';
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
} from './outcomes.js';
