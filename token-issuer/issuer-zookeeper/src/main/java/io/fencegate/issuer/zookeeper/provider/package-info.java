/**
 * The ZooKeeper issuers as backends the gateway discovers ({@link io.fencegate.issuer.spi.IssuerProvider},
 * registered in {@code META-INF/services}): {@code zookeeper} on an ensemble, and
 * {@code embedded-zookeeper} on ZooKeeper's own server in this process ({@link
 * io.fencegate.issuer.zookeeper.provider.EmbeddedZooKeeper}); their settings and how they open.
 */
package io.fencegate.issuer.zookeeper.provider;
