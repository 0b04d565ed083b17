package io.fencegate.spring.integration;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseWatchdog;
import java.util.ConcurrentModificationException;

/**
 * One permit of a {@link FencedSemaphore}: the slot it holds and the token of its slot's lock,
 * kept alive (when the registry keeps leases alive) until {@link #release()}. Send {@link #token()}
 * with every write to what the slot's lock {@link #lock()} guards, the slot's own partition of the
 * work. Not bound to a thread.
 */
public final class FencedPermit implements AutoCloseable {
    private final FencedLockRegistry registry;
    private final Lease lease;
    private final LeaseWatchdog.KeepAlive keepAlive;
    private volatile boolean lost;
    private boolean released; // guarded by this

    FencedPermit(FencedLockRegistry registry, Lease lease) {
        this.registry = registry;
        this.lease = lease;
        this.keepAlive = registry.keepAlive()
                ? registry.watchdog().keepAlive(lease, registry.ttl(), last -> lost = true) : null;
    }

    /** The slot this permit holds, {@code 0..permits-1}. */
    public int slot() {
        return lease.slot();
    }

    /** The fencing token of the slot's lock: send it with every write to what that lock guards. */
    public long token() {
        return lease.token();
    }

    /** The slot's lock, {@code {prefix}{semaphore}/{slot}}. */
    public String lock() {
        return lease.lock();
    }

    /**
     * Whether the permit's lease has ended under its holder (a pause past the ttl, a lost backend),
     * as its keep-alive found; without keep-alive, {@link #release()} is where a loss shows.
     */
    public boolean isLost() {
        return lost;
    }

    /** Throws {@link IllegalStateException} if the permit's lease was lost. */
    public void checkHeld() {
        if (lost) {
            throw new IllegalStateException("the permit on '" + lease.lock() + "' (token " + lease.token() + ") was lost");
        }
    }

    /**
     * Gives the permit back. A second call does nothing. A permit whose lease ended under its
     * holder is dropped, then this throws {@link ConcurrentModificationException}: the slot may
     * have had a newer holder since, whose writes carry a higher token.
     */
    public void release() {
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
        }
        if (keepAlive != null) {
            keepAlive.stop();
        }
        boolean ok = !lost && registry.awaitQuietly(registry.issuer().release(lease.leaseId()));
        if (!ok) {
            throw new ConcurrentModificationException("the permit on '" + lease.lock() + "' (token " + lease.token()
                    + ") ended before its release, or its release went unanswered: a newer holder of the slot may have written since");
        }
    }

    /** {@link #release()}, for try-with-resources. */
    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "FencedPermit[" + lease.lock() + ", token " + lease.token() + "]";
    }
}
