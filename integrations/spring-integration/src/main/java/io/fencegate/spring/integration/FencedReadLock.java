package io.fencegate.spring.integration;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.LeaseWatchdog;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The read lock of a {@link FencedReadWriteLock}: each thread that locks it holds a read lease of
 * its own (shared at the issuer with every other read lease of the key, in this process or any
 * other, never with the write lease), with its own token. Reentrant per thread: nested holds share
 * the thread's lease; the last unlock releases it.
 *
 * <p>{@link #token()} is the current thread's read token: send it with fenced reads, which fence
 * out every writer whose lease ended before this read lease was granted. The gateway and the
 * stores refuse it on every write. {@link #isLost()} turns true if the lease ended under the
 * holder; {@link #unlock()} of a lost lease then throws {@link ConcurrentModificationException},
 * as {@link FencedLock#unlock()} does.
 *
 * <p>No upgrade or downgrade: a thread that holds the read lock and locks the write lock of the
 * same key (or the other way round) waits for itself at the issuer.
 */
public final class FencedReadLock implements Lock {
    /** How long one issuer call waits before lock() asks again (lock() itself waits forever). */
    private static final Duration WAIT_SLICE = Duration.ofSeconds(30);

    private final FencedLockRegistry registry;
    private final String key;
    private final String lockName;
    private final Map<Thread, Held> holds = new ConcurrentHashMap<>();

    /** One thread's read lease and how deep it holds it. */
    private static final class Held {
        final Lease lease;
        LeaseWatchdog.KeepAlive keepAlive;
        volatile boolean lost;
        int depth = 1;

        Held(Lease lease) {
            this.lease = lease;
        }
    }

    FencedReadLock(FencedLockRegistry registry, String key) {
        this.registry = registry;
        this.key = key;
        this.lockName = registry.lockPrefix() + key;
    }

    /** The key this lock was obtained for. */
    public String key() {
        return key;
    }

    /** The fencing token of the read lease the current thread holds: fenced reads only. */
    public long token() {
        return owned().lease.token();
    }

    /** Whether the read lease the current thread holds has ended under it. */
    public boolean isLost() {
        return owned().lost;
    }

    /** Throws {@link IllegalStateException} if the current thread's read lease was lost. */
    public void checkHeld() {
        Held h = owned();
        if (h.lost) {
            throw new IllegalStateException("the read lease on '" + lockName + "' (token " + h.lease.token() + ") was lost");
        }
    }

    @Override
    public void lock() {
        boolean interrupted = false;
        while (true) {
            try {
                if (take(WAIT_SLICE)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true; // lock() is not interruptible: keep waiting, restore the flag after
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        while (!take(WAIT_SLICE)) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    @Override
    public boolean tryLock() {
        try {
            return take(Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return take(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
    }

    /** True at once for a nested hold; else asks the issuer for a read lease within {@code wait}. */
    private boolean take(Duration wait) throws InterruptedException {
        Held nested = holds.get(Thread.currentThread());
        if (nested != null) {
            nested.depth++;
            return true;
        }
        Optional<Lease> lease = registry.await(
                registry.issuer().acquire(lockName, LeaseMode.READ, registry.ttl(), wait, Duration.ZERO), wait);
        if (lease.isEmpty()) {
            return false;
        }
        Held h = new Held(lease.get());
        if (registry.keepAlive()) {
            h.keepAlive = registry.watchdog().keepAlive(lease.get(), registry.ttl(), last -> h.lost = true);
        }
        holds.put(Thread.currentThread(), h);
        return true;
    }

    /**
     * The current thread's last unlock releases its read lease. One that ended under the holder is
     * still dropped here, then throws {@link ConcurrentModificationException}.
     */
    @Override
    public void unlock() {
        Held h = owned();
        if (--h.depth > 0) {
            return;
        }
        holds.remove(Thread.currentThread());
        if (h.keepAlive != null) {
            h.keepAlive.stop();
        }
        boolean released = !h.lost && registry.awaitQuietly(registry.issuer().release(h.lease.leaseId()));
        if (!released) {
            throw new ConcurrentModificationException("the read lease on '" + lockName + "' (token " + h.lease.token()
                    + ") ended before unlock, or its release went unanswered: a writer may have written since");
        }
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("fencegate locks have no conditions");
    }

    private Held owned() {
        Held h = holds.get(Thread.currentThread());
        if (h == null) {
            throw new IllegalStateException("the current thread does not hold the read lock at '" + key + "'");
        }
        return h;
    }

    @Override
    public String toString() {
        return "FencedReadLock[" + lockName + "]";
    }
}
