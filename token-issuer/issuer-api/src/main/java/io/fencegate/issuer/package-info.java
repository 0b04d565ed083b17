/**
 * Leases with fencing tokens, whatever the backend: {@link io.fencegate.issuer.LeaseIssuer} grants
 * {@link io.fencegate.issuer.Lease}s, {@link io.fencegate.issuer.LeaseWatchdog} keeps them alive
 * (its deadline: the send time of the last confirmed acquire or renew plus the ttl, on
 * {@code System.nanoTime}; an issuer stamps the acquire's in {@link io.fencegate.issuer.Lease#startedAtNanos()}).
 * Every issuer takes the same lock names ({@link io.fencegate.issuer.LockNames}), refuses bad
 * arguments with {@link java.lang.IllegalArgumentException}, and fails with
 * {@link io.fencegate.issuer.IssuerUnavailableException} when its backend is unreachable or slow,
 * or the issuer is closed. Watchers read a lease from any instance ({@code find}, {@code wasReleased});
 * operators list live leases ({@code list}: {@link io.fencegate.issuer.LeasePage} of
 * {@link io.fencegate.issuer.LeaseInfo}); an acquire may carry a lock-delay kept in the backend.
 * Backends: {@code io.fencegate.issuer.zookeeper}
 * ({@code fencegate-issuer-zookeeper}), {@code io.fencegate.issuer.redis} ({@code fencegate-issuer-redis}),
 * {@code io.fencegate.issuer.sql} ({@code fencegate-issuer-sql}).
 */
package io.fencegate.issuer;
