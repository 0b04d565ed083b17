/**
 * The guarded-store SPI, and the guard written once.
 *
 * <ul>
 *   <li>{@link io.fencegate.store.GuardedStore}: write, delete, read and fenced read of one item,
 *       each atomic in its backend; {@link io.fencegate.store.GuardedStatements}: SQL stores'
 *       named statements in one transaction under a key's guard row. Results are types:
 *       {@link io.fencegate.store.Applied}, {@link io.fencegate.store.Executed},
 *       {@link io.fencegate.store.Found}, {@link io.fencegate.store.Missing},
 *       {@link io.fencegate.store.Stale}.</li>
 *   <li>{@link io.fencegate.store.GuardDecision}: DESIGN.md's table as pure functions of an
 *       item's locked {@link io.fencegate.store.ItemState} and a token. A store locks the item,
 *       asks the decision and stores its outcome; only SQL that must decide inside one statement
 *       (Postgres) repeats the rule, and its answer is checked against the decision.</li>
 *   <li>{@link io.fencegate.store.GuardInputs} with {@link io.fencegate.store.StoreLimits}: the
 *       input checks every operation starts with; bad input fails the stage and changes nothing.</li>
 *   <li>For adapters: {@link io.fencegate.store.StoreOptions} (the name, guard rule and limits every
 *       store's options share), {@link io.fencegate.store.OptionChecks} (options' {@code validate()}, messages
 *       that name the option), {@link io.fencegate.store.StoreName} (one store-name rule),
 *       {@link io.fencegate.store.StoreThreads} (the daemon threads blocking stores run on),
 *       {@link io.fencegate.store.WriteCoalescer} (the writes in flight in batches, at most one
 *       a key, for a backend that judges many rows in one statement).</li>
 * </ul>
 *
 * <p>Every adapter proves itself with the suites of {@code store-test-kit}.
 */
package io.fencegate.store;
