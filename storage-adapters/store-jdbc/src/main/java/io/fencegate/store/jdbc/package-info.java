/**
 * Fencing on SQL databases through JDBC (PostgreSQL, MySQL/MariaDB, H2), on HikariCP and jOOQ.
 *
 * <ul>
 *   <li>{@link io.fencegate.store.jdbc.JdbcGuardedStore}: the guarded key-value store on
 *       {@code fencegate_item} (writes, tombstones, fenced reads) and named statements under a
 *       guard row of {@code fencegate_fence}; its own pool ({@code open}) or the application's
 *       ({@code over}).</li>
 *   <li>{@link io.fencegate.store.jdbc.TokenColumnGuard}: a token (and fence) column on the
 *       application's own table, guarding its jOOQ UPDATEs and fenced-read claims.</li>
 *   <li>{@link io.fencegate.store.jdbc.GuardRowTransactions}: any number of the application's jOOQ
 *       statements in one transaction under a locked guard row; a fenced read-modify-write by
 *       construction.</li>
 * </ul>
 *
 * <p>Keys compare as bytes on every database: MySQL/MariaDB and H2 key columns are VARBINARY and
 * keys are bound as their UTF-8 bytes, so no collation or H2 IGNORECASE setting makes two keys one
 * row (two items under two locks); PostgreSQL's text keys use the always-deterministic default
 * collation.
 *
 * <p>Applied/stale is never judged from an update count alone where MariaDB's found-rows
 * reporting could lie: rows are locked and read in the transaction, or the guard sits in an
 * UPDATE's WHERE clause. Every call is bounded by a connect timeout and a query timeout (and,
 * for pools the store builds, a socket timeout), so an unreachable database fails with
 * {@link io.fencegate.store.StoreUnavailableException} instead of hanging.
 */
package io.fencegate.store.jdbc;
