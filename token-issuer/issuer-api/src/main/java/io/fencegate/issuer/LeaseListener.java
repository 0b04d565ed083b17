package io.fencegate.issuer;

/**
 * Told when a lease granted by this issuer ends other than by {@link LeaseIssuer#release}.
 * From then on the holder must stop writing: its token is (or soon will be) fenced out.
 * Called on an issuer thread; must not block.
 */
@FunctionalInterface
public interface LeaseListener {
    void leaseEnded(Lease lease, LeaseEnd reason);
}
