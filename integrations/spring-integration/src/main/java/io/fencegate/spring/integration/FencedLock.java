package io.fencegate.spring.integration;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseWatchdog;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One key's lock from a {@link FencedLockRegistry}: a local {@link ReentrantLock} (threads of
 * this process queue here, and the owning thread may lock again) in front of a fencegate lease
 * (processes queue at the issuer). The first lock of the owning thread takes the lease, the last
 * unlock releases it; every nested hold shares its token.
 *
 * <p>While held, {@link #token()} is the token to send with every write the lock protects, and
 * {@link #isLost()} turns true if the lease ended under the holder (the keep-alive found it gone,
 * or a renew did). {@link #unlock()} of a lost lease still frees the lock here, then throws
 * {@link ConcurrentModificationException}, as Spring Integration's Redis and JDBC registries do
 * for an expired lock: another holder may have written in between, with a higher token.
 */
public final class FencedLock implements Lock {
    /** How long one issuer call waits for the lock before lock() asks again (lock() itself waits forever). */
    private static final Duration WAIT_SLICE = Duration.ofSeconds(30);

    private final FencedLockRegistry registry;
    private final String key;
    private final String lockName;
    private final ReentrantLock local = new ReentrantLock();
    private volatile Held held;
    private volatile long lastUsedNanos = System.nanoTime();

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
        this.registry = registry;
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
    public void lock() {
        local.lock();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (takeLease(WAIT_SLICE)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true; // lock() is not interruptible: keep waiting, restore the flag after
                }
            }
        } catch (RuntimeException e) {
            local.unlock();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        local.lockInterruptibly();
        try {
            while (!takeLease(WAIT_SLICE)) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } catch (InterruptedException | RuntimeException e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock() {
        try {
            return tryLock(0, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(time);
        if (!local.tryLock(time, unit)) {
            return false;
        }
        try {
            if (takeLease(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                return true;
            }
        } catch (InterruptedException | RuntimeException e) {
            local.unlock();
            throw e;
        }
        local.unlock();
        return false;
    }

    /** With the local lock held: true at once for a nested hold, else asks the issuer for the lease. */
    private boolean takeLease(Duration wait) throws InterruptedException {
        lastUsedNanos = System.nanoTime();
        if (local.getHoldCount() > 1) {
            return true;
        }
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
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalStateException("the current thread does not hold the lock at '" + key + "'");
        }
        lastUsedNanos = System.nanoTime();
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        Held h = held;
        held = null;
        try {
            if (h.keepAlive != null) {
                h.keepAlive.stop();
            }
            boolean released = !h.lost && registry.awaitQuietly(registry.issuer().release(h.lease.leaseId()));
            if (!released) {
                throw new ConcurrentModificationException("the lease on '" + lockName + "' (token " + h.lease.token()
                        + ") ended before unlock, or its release went unanswered: a newer holder may have written since; writes with this token are refused");
            }
        } finally {
            local.unlock();
        }
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

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("fencegate locks have no conditions");
    }

    boolean isUnusedSince(long nanos) {
        return !local.isLocked() && !local.hasQueuedThreads() && lastUsedNanos - nanos < 0;
    }

    private Held owned() {
        Held h = held;
        if (!local.isHeldByCurrentThread() || h == null) {
            throw new IllegalStateException("the current thread does not hold the lock at '" + key + "'");
        }
        return h;
    }

    @Override
    public String toString() {
        return "FencedLock[" + lockName + "]";
    }
}
