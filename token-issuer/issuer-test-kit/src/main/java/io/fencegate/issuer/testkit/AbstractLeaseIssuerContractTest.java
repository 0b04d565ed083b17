package io.fencegate.issuer.testkit;

import io.fencegate.issuer.LeaseIssuer;

/**
 * The contract every {@link LeaseIssuer} backend must keep, run against the real backend, its themes
 * in one line of bases: {@link GrantContract} (exclusion, tokens, renew and release by id,
 * {@code wasGranted}), {@link WaitingContract} (waiters, lock-delay), {@link ExpiryContract}
 * (expiry, renew, watching and listing leases), {@link RefusalContract} (bad input, a closed
 * issuer) and {@link MultiLockContract} (several locks as one group); what they share is in {@link IssuerContractSupport}.
 *
 * <p>A backend's test extends this class and implements {@link #newIssuer()}; the suite may call
 * it more than once per test to get independent issuer instances on the same backend (as two
 * gateways would be), and closes every issuer it got after each test. Lock names are unique per
 * test, so backends need no cleanup between tests beyond what they do for their own state.
 */
public abstract class AbstractLeaseIssuerContractTest extends MultiLockContract {
}
