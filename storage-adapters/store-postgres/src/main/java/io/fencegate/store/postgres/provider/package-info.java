/**
 * The reactive Postgres store as a backend a server discovers
 * ({@link io.fencegate.store.spi.StoreProvider}, registered in {@code META-INF/services}):
 * {@code type: postgres}, its settings and how they open a store on the server's Vert.x.
 */
package io.fencegate.store.postgres.provider;
