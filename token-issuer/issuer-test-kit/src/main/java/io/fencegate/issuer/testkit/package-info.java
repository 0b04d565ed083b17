/**
 * The contract every {@link io.fencegate.issuer.LeaseIssuer} keeps against its real backend.
 *
 * <p>A backend's test module depends on this kit at test scope and extends
 * {@link io.fencegate.issuer.testkit.AbstractLeaseIssuerContractTest}:
 *
 * <pre>{@code
 * class MyIssuerIT extends AbstractLeaseIssuerContractTest {
 *     @BeforeAll static void startBackend() { ... }                 // a real server, own namespace
 *     protected LeaseIssuer newIssuer() { return new MyIssuer(...); } // may be called several times per test
 * }
 * }</pre>
 *
 * <p>The suite proves mutual exclusion, strictly increasing tokens, waiting, expiry, renew and
 * release from any instance, {@code wasGranted}, the one lock-name rule
 * ({@link io.fencegate.issuer.LockNames}) that a closed issuer fails every call with
 * {@link io.fencegate.issuer.IssuerUnavailableException}, and all-or-nothing groups of locks, in themed bases:
 * {@link io.fencegate.issuer.testkit.GrantContract}, {@link io.fencegate.issuer.testkit.WaitingContract},
 * {@link io.fencegate.issuer.testkit.ExpiryContract}, {@link io.fencegate.issuer.testkit.RefusalContract} and
 * {@link io.fencegate.issuer.testkit.MultiLockContract} (several locks as one, through {@link io.fencegate.issuer.MultiLock}). {@code ZooKeeperLeaseIssuerIT} and
 * {@code RedisLeaseIssuerIT} extend it.
 */
package io.fencegate.issuer.testkit;
