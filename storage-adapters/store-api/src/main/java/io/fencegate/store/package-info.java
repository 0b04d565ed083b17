/**
 * The guarded store, as applications use it.
 *
 * <ul>
 *   <li>{@link io.fencegate.store.GuardedStore}: write, delete, read and fenced read of one item,
 *       each atomic in its backend; {@link io.fencegate.store.GuardedStatements}: SQL stores'
 *       named statements ({@link io.fencegate.store.NamedSql}) in one transaction under a key's
 *       guard row; {@link io.fencegate.store.GuardedStore#transact} and
 *       {@link io.fencegate.store.GuardedStore#fencedReadAll}: several items
 *       ({@link io.fencegate.store.GuardedOp}, {@link io.fencegate.store.ItemClaim}) in one
 *       transaction, all or nothing ({@link io.fencegate.store.Committed},
 *       {@link io.fencegate.store.Claimed}, {@link io.fencegate.store.Refused}). Results are types: {@link io.fencegate.store.Applied},
 *       {@link io.fencegate.store.Executed}, {@link io.fencegate.store.Found},
 *       {@link io.fencegate.store.Missing}, {@link io.fencegate.store.Stale}.</li>
 *   <li>What every store is configured with: {@link io.fencegate.store.StoreOptions} (the name,
 *       guard rule and limits every store's options share), {@link io.fencegate.store.GuardRule},
 *       {@link io.fencegate.store.StoreLimits}, {@link io.fencegate.store.StoreName} (one
 *       store-name rule).</li>
 *   <li>How a store fails: {@link io.fencegate.store.StoreUnavailableException} (the backend did
 *       not answer), {@link io.fencegate.store.StoreClaimedException} (its place belongs to
 *       another store name).</li>
 * </ul>
 *
 * <p>Backends find what they share in {@code io.fencegate.store.backend}; servers find them
 * through {@code io.fencegate.store.spi}. Every backend proves itself with the suites of
 * {@code store-test-kit}.
 */
package io.fencegate.store;
