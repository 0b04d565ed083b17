package io.fencegate.check;

/**
 * A fault the nemesis injected, from {@code startUs} to {@code endUs} (epoch microseconds). A
 * fault carries its own facts, so the checker never needs to know fault names:
 *
 * @param scope      whose leases it touches: {@link #EVERYWHERE}, or the base URL of the one gateway
 *                   it hit (as recorded in each operation's {@code gateway})
 * @param endsLeases whether leases in its scope may end before their ttl because of it (the issuer
 *                   lost its state, or a gateway's session expired)
 */
public record Fault(String kind, long startUs, long endUs, String detail, String scope, boolean endsLeases) {
    public static final String EVERYWHERE = "*";

    public boolean overlaps(long fromUs, long toUs) {
        return startUs <= toUs && fromUs <= endUs;
    }

    /**
     * Whether it touches what {@code gateway} serves. A fault without a scope (written before faults
     * had one) may have touched anything; an operation without a gateway (written before operations
     * recorded one) is touched only by a fault everywhere: a fault on one gateway cannot be shown to
     * have reached it.
     */
    public boolean reaches(String gateway) {
        if (scope == null || scope.equals(EVERYWHERE)) {
            return true;
        }
        return gateway != null && slashed(scope).equals(slashed(gateway));
    }

    /** Whether it may have ended, between {@code fromUs} and {@code toUs}, a lease granted through {@code gateway}. */
    public boolean mayEndLease(String gateway, long fromUs, long toUs) {
        return endsLeases && reaches(gateway) && overlaps(fromUs, toUs);
    }

    private static String slashed(String url) {
        return url.endsWith("/") ? url : url + "/";
    }
}
