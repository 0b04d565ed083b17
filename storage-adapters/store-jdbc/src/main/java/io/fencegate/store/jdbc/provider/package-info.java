/**
 * The JDBC store as a backend a server discovers ({@link io.fencegate.store.spi.StoreProvider},
 * registered in {@code META-INF/services}): {@code type: jdbc}, its settings and how they open a
 * store.
 */
package io.fencegate.store.jdbc.provider;
