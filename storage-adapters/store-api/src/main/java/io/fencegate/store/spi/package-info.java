/**
 * How a server finds and opens store backends: a {@link io.fencegate.store.spi.StoreProvider}
 * per store type, registered for {@link java.util.ServiceLoader}, whose settings are a record of
 * the keys that type accepts. No server library (Vert.x, Jackson) is needed to write one; see
 * docs/ARCHITECTURE.md, "Adding a store".
 */
package io.fencegate.store.spi;
