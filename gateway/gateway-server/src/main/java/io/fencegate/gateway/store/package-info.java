/**
 * The SQL store types the gateway ships as {@link io.fencegate.store.spi.StoreProvider}s
 * ({@code jdbc}, {@code postgres}), registered in this module's {@code META-INF/services} like any
 * other backend. They live here, not in their store modules, because their settings carry the
 * gateway's choices (named statements, the Postgres migration over JDBC); the files store's
 * provider lives in its own module.
 */
package io.fencegate.gateway.store;
