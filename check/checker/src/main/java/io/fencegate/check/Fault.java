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
}
