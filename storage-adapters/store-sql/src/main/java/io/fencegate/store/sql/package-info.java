/**
 * What the SQL stores ({@code store-jdbc}, {@code store-postgres}) share at runtime: the guarded
 * Postgres statements ({@link io.fencegate.store.sql.PostgresGuardSql}), the claim of a database
 * or schema for one store name ({@link io.fencegate.store.sql.StoreClaim}) and the settings keys
 * of both SQL store types ({@link io.fencegate.store.sql.SqlSettings}). The tables they work on
 * are {@code schema}'s migrations.
 */
package io.fencegate.store.sql;
