package io.fencegate.spring.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link Lock} mechanics a {@link FencedLockRegistry}'s locks share, whatever they lease (one
 * lock's lease, or a group's): a local {@link ReentrantLock} in front (threads of this process
 * queue here, and the owning thread may lock again), the leases taken by the first hold and
 * released by the last unlock. Subclasses say how the leases are taken and released.
 */
abstract class LeasedLock implements Lock {
    /** How long one issuer call waits for the lock before lock() asks again (lock() itself waits forever). */
    private static final Duration WAIT_SLICE = Duration.ofSeconds(30);

    final FencedLockRegistry registry;
    final ReentrantLock local = new ReentrantLock();
    private volatile long lastUsedNanos = System.nanoTime();

    LeasedLock(FencedLockRegistry registry) {
        this.registry = registry;
    }

    /** With the local lock held by its first hold: takes the lease(s) within {@code wait}; true if taken. */
    abstract boolean takeLeases(Duration wait) throws InterruptedException;

    /**
     * Ends the hold (stops its keep-alive, releases its leases); null if released cleanly, else why
     * not: the lease(s) ended before unlock, or the release went unanswered.
     */
    abstract String releaseLeases();

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

    /** With the local lock held: true at once for a nested hold, else asks the issuer. */
    private boolean takeLease(Duration wait) throws InterruptedException {
        lastUsedNanos = System.nanoTime();
        if (local.getHoldCount() > 1) {
            return true;
        }
        return takeLeases(wait);
    }

    /**
     * The last unlock of the owning thread releases the lease(s). One that ended under the holder
     * still frees the lock here, then throws {@link ConcurrentModificationException}, as Spring
     * Integration's Redis and JDBC registries do for an expired lock.
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalStateException("the current thread does not hold the lock at '" + name() + "'");
        }
        lastUsedNanos = System.nanoTime();
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        try {
            String notReleased = releaseLeases();
            if (notReleased != null) {
                throw new ConcurrentModificationException(notReleased);
            }
        } finally {
            local.unlock();
        }
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("fencegate locks have no conditions");
    }

    boolean isUnusedSince(long nanos) {
        return !local.isLocked() && !local.hasQueuedThreads() && lastUsedNanos - nanos < 0;
    }

    /** The key(s) in messages. */
    abstract String name();
}
