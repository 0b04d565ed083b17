package io.fencegate.spring.integration;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseWatchdog;
import java.time.Duration;
import java.util.Optional;

/**
 * One key's lock from a {@link FencedLockRegistry}: a local {@link java.util.concurrent.locks.ReentrantLock} (threads of
 * this process queue here, and the owning thread may lock again) in front of a fencegate lease
 * (processes queue at the issuer). The first lock of the owning thread takes the lease, the last
 * unlock releases it; every nested hold shares its token.
 *
 * <p>While held, {@link #token()} is the token to send with every write the lock protects, and
 * {@link #isLost()} turns true if the lease ended under the holder (the keep-alive found it gone,
 * or a renew did). {@link #unlock()} of a lost lease still frees the lock here, then throws
 * {@link java.util.ConcurrentModificationException}, as Spring Integration's Redis and JDBC registries do
 * for an expired lock: another holder may have written in between, with a higher token.
 */
public final class FencedLock extends LeasedLock {
    private final String key;
    private final String lockName;
    private volatile Held held;

    /** The lease of the current hold; written only by the owning thread. */
    private static final class Held {
        final Lease lease;
        LeaseWatchdog.KeepAlive keepAlive;
        volatile boolean lost;

        Held(Lease lease) {
            this.lease = lease;
        }
    }

    FencedLock(FencedLockRegistry registry, String key) {
        super(registry);
        this.key = key;
        this.lockName = registry.lockPrefix() + key;
    }

    /** The key this lock was obtained for. */
    public String key() {
        return key;
    }

    /** The fencing token of the lease the current thread holds. */
    public long token() {
        return owned().lease.token();
    }

    /** Whether the lease the current thread holds has ended under it. */
    public boolean isLost() {
        return owned().lost;
    }

    /** Throws {@link IllegalStateException} if the current thread's lease was lost. */
    public void checkHeld() {
        Held h = owned();
        if (h.lost) {
            throw new IllegalStateException("the lease on '" + lockName + "' (token " + h.lease.token() + ") was lost");
        }
    }

    @Override
    boolean takeLeases(Duration wait) throws InterruptedException {
        Optional<Lease> lease = registry.await(registry.issuer().acquire(lockName, registry.ttl(), wait), wait);
        if (lease.isEmpty()) {
            return false;
        }
        Held h = new Held(lease.get());
        if (registry.keepAlive()) {
            h.keepAlive = registry.watchdog().keepAlive(lease.get(), registry.ttl(), last -> h.lost = true);
        }
        held = h;
        return true;
    }

    @Override
    String releaseLeases() {
        Held h = held;
        held = null;
        if (h.keepAlive != null) {
            h.keepAlive.stop();
        }
        boolean released = !h.lost && registry.awaitQuietly(registry.issuer().release(h.lease.leaseId()));
        return released ? null : "the lease on '" + lockName + "' (token " + h.lease.token()
                + ") ended before unlock, or its release went unanswered: a newer holder may have written since; writes with this token are refused";
    }

    /** Renews the current thread's lease now; see {@link FencedLockRegistry#renewLock}. */
    void renew() {
        Held h = owned();
        Optional<Lease> renewed;
        try {
            renewed = registry.await(registry.issuer().renew(h.lease.leaseId()), registry.callTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while renewing '" + lockName + "'", e);
        }
        if (renewed.isEmpty()) {
            h.lost = true;
            throw new IllegalStateException("could not renew the lock at '" + key + "': its lease was lost");
        }
    }

    private Held owned() {
        Held h = held;
        if (!local.isHeldByCurrentThread() || h == null) {
            throw new IllegalStateException("the current thread does not hold the lock at '" + key + "'");
        }
        return h;
    }

    @Override
    String name() {
        return key;
    }

    @Override
    public String toString() {
        return "FencedLock[" + lockName + "]";
    }
}
