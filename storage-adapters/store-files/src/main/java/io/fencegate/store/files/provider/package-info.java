/**
 * The files store as a backend the gateway discovers ({@link io.fencegate.store.spi.StoreProvider},
 * registered in {@code META-INF/services}): its settings and how they open a store.
 */
package io.fencegate.store.files.provider;
