package io.fencegate.issuer.backend;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseListener;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.LeasePage;
import io.fencegate.issuer.LockNames;
import io.fencegate.issuer.Semaphores;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every backend's issuer does alike, written once: argument checks, the closed state, the
 * positive {@code wasGranted} cache, lease-id parsing and the listeners. A backend implements the
 * operations ({@link #grant}, {@link #renewLease}, {@link #releaseLease}, {@link #isGranted}, ...)
 * and sees only calls that passed the checks: a valid lock, a ttl of at least 1 ms, no negative
 * wait or lock-delay, an open issuer, a lease id it could have made.
 *
 * <p>Order of the checks, the same on every backend: bad arguments fail with
 * {@link IllegalArgumentException} first, then a closed issuer with {@link IssuerUnavailableException};
 * a lease id the backend cannot parse answers "no lease" without a round trip.
 *
 * @param <I> a lease id as the backend parsed it
 */
public abstract class AbstractLeaseIssuer<I> implements LeaseIssuer {

    private static final Logger LOG = LoggerFactory.getLogger(AbstractLeaseIssuer.class);

    private final String backend;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final KnownGrants grantCache;
    private final LeaseListeners listeners = new LeaseListeners();

    /**
     * @param backend           how errors name this issuer ("Redis": "Redis lease issuer is closed")
     * @param grantCacheEntries how many positive {@code wasGranted} answers to keep in-process
     */
    protected AbstractLeaseIssuer(String backend, int grantCacheEntries) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.grantCache = new KnownGrants(grantCacheEntries);
    }

    // ------------------------------------------------------------------ what a backend implements

    /**
     * Grants {@code lock} or answers empty once {@code wait} ran out.
     *
     * @param ttlMs       at least 1
     * @param wait        zero or positive
     * @param lockDelayMs zero or positive
     */
    protected abstract CompletionStage<Optional<Lease>> grant(String lock, long ttlMs, Duration wait, long lockDelayMs);

    /**
     * Grants {@code lock} as a read lease, or answers empty once {@code wait} ran out; the arguments
     * as {@link #grant}. The default: this backend keeps no read leases yet.
     */
    protected CompletionStage<Optional<Lease>> grantRead(String lock, long ttlMs, Duration wait, long lockDelayMs) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(backend + " lease issuer does not support read leases yet"));
    }

    /**
     * Grants a permit of {@code semaphore} (a name and count {@link Semaphores#check} passed), or
     * answers empty once {@code wait} ran out; {@code lockDelayMs} (zero or positive) is the taken
     * slot's lock-delay, kept as {@link #grant} keeps a lock's. The default: this backend keeps no
     * semaphores yet.
     */
    protected CompletionStage<Optional<Lease>> grantPermit(String semaphore, int permits, long ttlMs, Duration wait, long lockDelayMs) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(backend + " lease issuer does not support semaphores yet"));
    }

    /**
     * Whether this backend grants read leases ({@link #grantRead} overridden). If not, every grant is a
     * write and {@code grantedMode} is {@code wasGranted}, with its cache (grants a backend learns of
     * without their mode, from a grant log, answer without a round trip).
     */
    protected boolean grantsReadLeases() {
        return false;
    }

    /**
     * The mode {@code token} was granted in; {@code token} is positive and its mode not cached. Asked
     * only of a backend that {@link #grantsReadLeases}. A present answer is cached.
     */
    protected CompletionStage<Optional<LeaseMode>> grantedModeOf(String lock, long token) {
        return isGranted(lock, token).thenApply(granted -> granted ? Optional.of(LeaseMode.WRITE) : Optional.empty());
    }

    /** Empty for anything that is not an id this backend could have made. Never fails. */
    protected abstract Optional<I> parseLeaseId(String leaseId);

    /** The lock a parsed id names; empty if this backend's ids do not carry it. Never fails. */
    protected Optional<String> lockOfId(I id) {
        return Optional.empty();
    }

    protected abstract CompletionStage<Optional<Lease>> renewLease(String leaseId, I id);

    protected abstract CompletionStage<Boolean> releaseLease(String leaseId, I id);

    protected abstract CompletionStage<Optional<Lease>> findLease(String leaseId, I id);

    /** Asks the backend; {@code token} is positive and not in the cache. A true answer is cached. */
    protected abstract CompletionStage<Boolean> isGranted(String lock, long token);

    protected abstract CompletionStage<Boolean> isReleased(Lease lease);

    /** @param after the lock the page starts after (the decoded cursor), null for the first page */
    protected abstract CompletionStage<LeasePage> listPage(String lockPrefix, String after, int limit);

    /** Ends the leases granted here and releases the backend's resources; called once, bounded in time. */
    protected abstract void shutdown();

    // ------------------------------------------------------------------ the API, checked once

    @Override
    public final CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait) {
        return acquire(lock, ttl, wait, Duration.ZERO);
    }

    /** The delay is kept in the backend, with the lease, so every instance honours it. */
    @Override
    public final CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait, Duration lockDelay) {
        try {
            checkAcquire(lock, ttl, wait, lockDelay);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (closed.get()) {
            return closedFailure();
        }
        return grant(lock, ttl.toMillis(), wait, lockDelay.toMillis());
    }

    private static void checkAcquire(String lock, Duration ttl, Duration wait, Duration lockDelay) {
        LockNames.check(lock);
        if (ttl == null || ttl.toMillis() <= 0) {
            throw new IllegalArgumentException("ttl must be at least 1 ms, was " + ttl);
        }
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("wait must be zero or positive, was " + wait);
        }
        if (lockDelay == null || lockDelay.isNegative()) {
            throw new IllegalArgumentException("lockDelay must be zero or positive, was " + lockDelay);
        }
    }

    @Override
    public final CompletionStage<Optional<Lease>> acquire(String lock, LeaseMode mode, Duration ttl, Duration wait, Duration lockDelay) {
        if (mode == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("mode must be read or write"));
        }
        if (mode == LeaseMode.WRITE) {
            return acquire(lock, ttl, wait, lockDelay);
        }
        try {
            checkAcquire(lock, ttl, wait, lockDelay);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (!grantsReadLeases()) {
            // Fail closed: a backend that grants read leases without saying so would have every token's
            // mode answered as write by grantedMode, and a store would let a read token write.
            return CompletableFuture.failedFuture(new UnsupportedOperationException(backend
                    + " lease issuer does not support read leases yet"));
        }
        return closed.get() ? closedFailure() : grantRead(lock, ttl.toMillis(), wait, lockDelay.toMillis());
    }

    @Override
    public final CompletionStage<Optional<Lease>> acquirePermit(String semaphore, int permits, Duration ttl, Duration wait) {
        return acquirePermit(semaphore, permits, ttl, wait, Duration.ZERO);
    }

    /** The delay is kept in the backend with the slot's lease, as a write lease's is. */
    @Override
    public final CompletionStage<Optional<Lease>> acquirePermit(String semaphore, int permits, Duration ttl, Duration wait,
                                                                Duration lockDelay) {
        try {
            Semaphores.check(semaphore, permits);
            checkAcquire(Semaphores.slotLock(semaphore, 0), ttl, wait, lockDelay);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return closed.get() ? closedFailure() : grantPermit(semaphore, permits, ttl.toMillis(), wait, lockDelay.toMillis());
    }

    /** Like {@link #wasGranted}: a known mode is kept in-process, and a closed issuer answers nothing. */
    @Override
    public final CompletionStage<Optional<LeaseMode>> grantedMode(String lock, long token) {
        try {
            LockNames.check(lock);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (closed.get()) {
            return closedFailure();
        }
        if (token <= 0) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        if (!grantsReadLeases()) {
            return wasGranted(lock, token).thenApply(granted -> granted ? Optional.of(LeaseMode.WRITE) : Optional.empty());
        }
        Optional<LeaseMode> known = grantCache.modeOf(lock, token);
        if (known.isPresent()) {
            return CompletableFuture.completedFuture(known);
        }
        CompletableFuture<Optional<LeaseMode>> answer = new CompletableFuture<>();
        grantedModeOf(lock, token).whenComplete((mode, error) -> {
            if (error != null) {
                answer.completeExceptionally(error);
                return;
            }
            mode.ifPresent(m -> grantCache.add(lock, token, m));
            answer.complete(mode);
        });
        return answer;
    }

    @Override
    public final CompletionStage<Optional<Lease>> renew(String leaseId) {
        return onLease(leaseId, Optional.empty(), id -> renewLease(leaseId, id));
    }

    @Override
    public final CompletionStage<Boolean> release(String leaseId) {
        return onLease(leaseId, false, id -> releaseLease(leaseId, id));
    }

    @Override
    public final CompletionStage<Optional<Lease>> find(String leaseId) {
        return onLease(leaseId, Optional.empty(), id -> findLease(leaseId, id));
    }

    /** Parsed here, without the backend: works on a closed issuer too (the call that follows fails). */
    @Override
    public final Optional<String> lockOf(String leaseId) {
        return parseLeaseId(leaseId).flatMap(this::lockOfId);
    }

    /** Tokens are positive, so a token of 0 or less was never granted; a "yes" is kept in-process. */
    @Override
    public final CompletionStage<Boolean> wasGranted(String lock, long token) {
        try {
            LockNames.check(lock);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        // Before the cache: a closed issuer answers nothing, like every issuer (the contract suite pins it).
        if (closed.get()) {
            return closedFailure();
        }
        if (token <= 0) {
            return CompletableFuture.completedFuture(false);
        }
        if (grantCache.contains(lock, token)) {
            return CompletableFuture.completedFuture(true);
        }
        // Completed by hand, not thenApply: a failure reaches the caller as the backend raised it.
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        isGranted(lock, token).whenComplete((granted, error) -> {
            if (error != null) {
                answer.completeExceptionally(error);
                return;
            }
            if (granted) {
                grantCache.add(lock, token);
            }
            answer.complete(granted);
        });
        return answer;
    }

    @Override
    public final CompletionStage<Boolean> wasReleased(Lease lease) {
        Objects.requireNonNull(lease, "lease");
        return closed.get() ? closedFailure() : isReleased(lease);
    }

    @Override
    public final CompletionStage<LeasePage> list(String lockPrefix, String cursor, int limit) {
        String after;
        try {
            after = ListCursors.checkedAfter(lockPrefix, cursor, limit);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return closed.get() ? closedFailure() : listPage(lockPrefix, after, limit);
    }

    @Override
    public final void addListener(LeaseListener listener) {
        listeners.add(listener);
    }

    @Override
    public final void close() {
        if (closed.compareAndSet(false, true)) {
            shutdown();
        }
    }

    // ------------------------------------------------------------------ for backends

    protected final boolean isClosed() {
        return closed.get();
    }

    /** The failure of every call on a closed issuer: the same as an unreachable backend's, for the caller. */
    protected final IssuerUnavailableException closedError() {
        return new IssuerUnavailableException(backend + " lease issuer is closed");
    }

    protected final <T> CompletableFuture<T> closedFailure() {
        return CompletableFuture.failedFuture(closedError());
    }

    /** A grant made here: {@code wasGranted} answers it without asking the backend. */
    protected final void rememberGrant(String lock, long token) {
        grantCache.add(lock, token);
    }

    /** A grant made here, with its mode: {@code wasGranted} and {@code grantedMode} answer it without asking the backend. */
    protected final void rememberGrant(String lock, long token, LeaseMode mode) {
        grantCache.add(lock, token, mode);
    }

    /** The cache itself, for a backend whose parts learn of grants too (a grant log). */
    protected final KnownGrants grantCache() {
        return grantCache;
    }

    /** Tells the listeners that a lease granted here ended without a release. */
    protected final void leaseEnded(Lease lease, LeaseEnd reason) {
        LOG.debug("{} lease on lock '{}' with token {} ended: {}", backend, lease.lock(), lease.token(), reason);
        listeners.tell(lease, reason);
    }

    /** Runs {@code call} for an id this backend could have made; any other id answers {@code none}. */
    private <T> CompletionStage<T> onLease(String leaseId, T none, Function<I, CompletionStage<T>> call) {
        if (closed.get()) {
            return closedFailure();
        }
        Optional<I> id = parseLeaseId(leaseId);
        return id.isEmpty() ? CompletableFuture.completedFuture(none) : call.apply(id.get());
    }
}
