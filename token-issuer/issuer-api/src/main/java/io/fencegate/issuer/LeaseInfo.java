package io.fencegate.issuer;

/**
 * One live lease as a listing shows it ({@link LeaseIssuer#list}). No lease id: that is the
 * holder's secret, and a listing is for operators.
 *
 * @param lock      the lock's name (a permit's: its slot's lock, {@link Semaphores#slotLock})
 * @param token     the lease's fencing token
 * @param expiresAt epoch milliseconds, as of the listing
 * @param grantedBy the issuer instance that granted it ({@code host/pid} unless configured), or
 *                  empty if the backend does not know it (granted by an older version)
 * @param mode      read or write; a lock held by several read leases is listed once per lease
 */
public record LeaseInfo(String lock, long token, long expiresAt, String grantedBy, LeaseMode mode) {

    public LeaseInfo {
        java.util.Objects.requireNonNull(mode, "mode");
    }

    /** A write lease, as every issuer lists its exclusive leases. */
    public LeaseInfo(String lock, long token, long expiresAt, String grantedBy) {
        this(lock, token, expiresAt, grantedBy, LeaseMode.WRITE);
    }
}
