/**
 * What the issuer backends ({@code io.fencegate.issuer.zookeeper}, {@code io.fencegate.issuer.redis},
 * {@code io.fencegate.issuer.sql})
 * share, written once: {@link io.fencegate.issuer.backend.AbstractLeaseIssuer} (argument checks,
 * the closed state, lease-id parsing, the positive {@code wasGranted} cache and the listeners, around
 * the operations each backend implements), {@link io.fencegate.issuer.backend.ExpiryChecks} (a
 * timer per held lease, to ask the backend whether it ended), lease-id framing and secrets, listing
 * cursors and daemon threads. For backend implementations; applications use
 * {@link io.fencegate.issuer.LeaseIssuer} and never import this package.
 */
package io.fencegate.issuer.backend;
