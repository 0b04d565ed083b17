package io.fencegate.issuer;

/**
 * One live lease as a listing shows it ({@link LeaseIssuer#list}). No lease id: that is the
 * holder's secret, and a listing is for operators.
 *
 * @param lock      the lock's name
 * @param token     the lease's fencing token
 * @param expiresAt epoch milliseconds, as of the listing
 * @param grantedBy the issuer instance that granted it ({@code host/pid} unless configured), or
 *                  empty if the backend does not know it (granted by an older version)
 */
public record LeaseInfo(String lock, long token, long expiresAt, String grantedBy) { }
