package io.fencegate.spring.integration;

import io.fencegate.issuer.Lease;
import java.time.Duration;
import java.util.Optional;

/**
 * A fenced semaphore of a {@link FencedLockRegistry} ({@link FencedLockRegistry#semaphore}): at
 * most {@link #permits()} permits live at once, across every process on the issuer. A permit
 * holds one slot {@code 0..permits-1}, an exclusive lease on that slot's lock {@code {name}/{slot}}:
 * its token guards what that lock guards, so the next holder of the slot fences out a holder of it
 * that was paused past its ttl. Waiting is FIFO at the issuer.
 *
 * <p>Unlike a {@link java.util.concurrent.Semaphore}, a permit is an object
 * ({@link FencedPermit}) with its slot and token: release it, from any thread, by
 * {@link FencedPermit#release()} (or try-with-resources). The count is fixed by the semaphore's
 * first acquire, on any process: another count is refused ({@link IllegalArgumentException}).
 */
public final class FencedSemaphore {
    /** How long one issuer call waits before acquire() asks again (acquire() itself waits forever). */
    private static final Duration WAIT_SLICE = Duration.ofSeconds(30);

    private final FencedLockRegistry registry;
    private final String name;
    private final String semaphoreName;
    private final int permits;

    FencedSemaphore(FencedLockRegistry registry, String name, int permits) {
        this.registry = registry;
        this.name = name;
        this.semaphoreName = registry.lockPrefix() + name;
        this.permits = permits;
    }

    /** The name this semaphore was obtained for (without the registry's lock prefix). */
    public String name() {
        return name;
    }

    public int permits() {
        return permits;
    }

    /** Waits, however long it takes, for a permit. */
    public FencedPermit acquire() throws InterruptedException {
        while (true) {
            Optional<FencedPermit> permit = tryAcquire(WAIT_SLICE);
            if (permit.isPresent()) {
                return permit.get();
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    /** A permit if one is free now; empty otherwise. */
    public Optional<FencedPermit> tryAcquire() throws InterruptedException {
        return tryAcquire(Duration.ZERO);
    }

    /** A permit if one is free within {@code wait}; empty otherwise. */
    public Optional<FencedPermit> tryAcquire(Duration wait) throws InterruptedException {
        Optional<Lease> lease = registry.await(
                registry.issuer().acquirePermit(semaphoreName, permits, registry.ttl(), wait), wait);
        return lease.map(l -> new FencedPermit(registry, l));
    }

    @Override
    public String toString() {
        return "FencedSemaphore[" + semaphoreName + " of " + permits + "]";
    }
}
