package io.fencegate.shedlock;

import io.fencegate.issuer.Lease;

/**
 * The lease a running job holds: its lock, its fencing token, and whether it is still held.
 * {@link #isLost()} turns true, once and for good, when the lease's keep-alive learns that it
 * ended; the job should stop then (its guarded writes are refused from then on anyway).
 */
public final class FencedLease {
    private final Lease lease;
    private volatile boolean lost;

    FencedLease(Lease lease) {
        this.lease = lease;
    }

    /** The lock's name, as the issuer holds it. */
    public String lock() {
        return lease.lock();
    }

    /** The fencing token to pass with every write the job makes. */
    public long token() {
        return lease.token();
    }

    /** Whether the lease ended before the job released it. */
    public boolean isLost() {
        return lost;
    }

    /** Throws {@link LeaseLostException} if the lease is lost; for a job to call between steps. */
    public void checkHeld() {
        if (lost) {
            throw new LeaseLostException("the lease on '" + lease.lock() + "' (token " + lease.token()
                    + ") was lost: another holder may have a newer token");
        }
    }

    String leaseId() {
        return lease.leaseId();
    }

    void markLost() {
        lost = true;
    }
}
