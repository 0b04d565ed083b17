/**
 * What the issuer backends ({@code io.fencegate.issuer.zookeeper}, {@code io.fencegate.issuer.redis},
 * {@code io.fencegate.issuer.sql})
 * share, written once: lease-id framing and secrets, the positive {@code wasGranted} cache,
 * listener notification and daemon threads. For backend implementations; applications use
 * {@link io.fencegate.issuer.LeaseIssuer} and never import this package.
 */
package io.fencegate.issuer.backend;
