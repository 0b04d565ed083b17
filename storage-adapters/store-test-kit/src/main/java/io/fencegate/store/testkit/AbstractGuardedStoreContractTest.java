package io.fencegate.store.testkit;

import io.fencegate.store.GuardedStore;

/**
 * The contract every {@link GuardedStore} passes against its real backend (DESIGN.md, "Guarded
 * writes and fenced reads"), its themes in one line of bases: {@link GuardContract} (guard rules,
 * sizes, keys, bad input), {@link FencedReadContract}, {@link ConcurrencyContract} (races and the
 * counter with a real issuer), {@link OutageContract}, {@link ClaimContract} and
 * {@link TransactionContract} (transactions across items, fenced multi-reads); the hooks and helpers
 * they share are in {@link StoreContractSupport}. A backend's test extends this class and supplies
 * stores on an isolated namespace (its own database, schema or directory, created and dropped by the
 * subclass); every test uses keys under its own random prefix, so stores may share data. A new
 * backend may start from a theme further down the line and move up as it passes more.
 *
 * <p>Adapters that add tests of their own write them in the subclass; adapters that are not
 * behind TCP say in {@link #outageHarness()} how their backend is taken away.
 */
public abstract class AbstractGuardedStoreContractTest extends TransactionContract {
}
