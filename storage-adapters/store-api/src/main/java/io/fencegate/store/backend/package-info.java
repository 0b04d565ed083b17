/**
 * What store backends share, written once; applications never import it (the module exports it
 * to the store modules only).
 *
 * <ul>
 *   <li>{@link io.fencegate.store.backend.GuardDecision}: DESIGN.md's table as pure functions of
 *       an item's locked {@link io.fencegate.store.backend.ItemState} and a token. A store locks
 *       the item, asks the decision and stores its outcome; only SQL that must decide inside one
 *       statement (Postgres) repeats the rule, and its answer is checked against the decision.</li>
 *   <li>{@link io.fencegate.store.backend.ItemTransactions}: transactions across items and fenced
 *       multi-reads: their checks, the one order items are locked in, the all-or-nothing decision.</li>
 *   <li>{@link io.fencegate.store.backend.GuardInputs} with
 *       {@link io.fencegate.store.StoreLimits}: the input checks every operation starts with; bad
 *       input fails the stage and changes nothing.</li>
 *   <li>{@link io.fencegate.store.backend.OptionChecks} (options' {@code validate()}, messages that
 *       name the option), {@link io.fencegate.store.backend.StoreThreads} (the daemon threads
 *       blocking stores run on), {@link io.fencegate.store.backend.WriteCoalescer} (the writes in
 *       flight in batches, at most one a key, for a backend that judges many rows in one
 *       statement).</li>
 * </ul>
 */
package io.fencegate.store.backend;
