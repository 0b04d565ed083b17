package io.fencegate.issuer;

/**
 * An exclusive grant of a lock, carrying its fencing token.
 *
 * @param lock      the lock's name, as the caller gave it
 * @param leaseId   opaque id naming this grant for renew and release; unguessable
 * @param token     the fencing token: positive, and strictly larger than every token granted
 *                  for this lock before, forever
 * @param expiresAt epoch milliseconds after which the issuer ends the lease unless renewed
 */
public record Lease(String lock, String leaseId, long token, long expiresAt) {

    public Lease {
        if (token <= 0) {
            throw new IllegalArgumentException("token must be positive, was " + token);
        }
    }

    /** The same lease with a new expiry, as a renew answers it. */
    public Lease withExpiresAt(long newExpiresAt) {
        return new Lease(lock, leaseId, token, newExpiresAt);
    }
}
