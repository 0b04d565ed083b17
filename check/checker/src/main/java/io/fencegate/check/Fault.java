package io.fencegate.check;

/**
 * A fault the nemesis injected, from {@code startUs} to {@code endUs} (epoch microseconds; it ends
 * when the deployment is healthy again). A fault carries its own facts, so the checker never needs
 * to know fault names:
 *
 * @param scope      whose leases it touches: {@link #EVERYWHERE}, or the base URL of the one gateway
 *                   it hit (as recorded in each operation's {@code gateway})
 * @param endsLeases whether leases in its scope may end before their ttl because of it (the issuer
 *                   lost its state, or a gateway's session expired)
 * @param struckUs   when its damage was done: a gateway killed and gone, a gateway stopped, Redis
 *                   flushed or restarted. A lease asked for later was granted by what came after (a
 *                   new process, a new session, the restarted Redis), which this fault cannot end.
 *                   Files written before faults had it load with it at {@code endUs}: the whole window.
 */
public record Fault(String kind, long startUs, long endUs, String detail, String scope, boolean endsLeases, long struckUs) {
    public static final String EVERYWHERE = "*";

    public Fault {
        struckUs = struckUs <= 0 ? endUs : Math.min(Math.max(struckUs, startUs), endUs);
    }

    /** A fault whose damage may have been done at any time in its window. */
    public Fault(String kind, long startUs, long endUs, String detail, String scope, boolean endsLeases) {
        this(kind, startUs, endUs, detail, scope, endsLeases, endUs);
    }

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

    /**
     * Whether it may have ended, before {@code beforeUs}, a lease granted through {@code gateway}
     * and asked for at {@code askedUs}: it ends leases, reaches that gateway, and its damage (from
     * its start to {@link #struckUs}) overlaps the span from the ask to {@code beforeUs}. A lease
     * asked for after the damage was done lives in what came after; a fault that began later ended
     * nothing before it.
     */
    public boolean mayEndLease(String gateway, long askedUs, long beforeUs) {
        return endsLeases && reaches(gateway) && startUs <= beforeUs && askedUs <= struckUs;
    }

    private static String slashed(String url) {
        return url.endsWith("/") ? url : url + "/";
    }
}
