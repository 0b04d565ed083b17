package io.fencegate.spring.integration;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseWatchdog;
import io.fencegate.issuer.MultiLock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration lock registry whose locks are fencegate leases, so code that locks through
 * {@code LockRegistry} (leader election, aggregators, {@code executeLocked}) gets a fencing token
 * with each lock: {@code ((FencedLock) registry.obtain(key)).token()}.
 *
 * <p>Semantics, as Spring Integration's Redis and JDBC registries have them where they apply:
 * keys are Strings; a lock is reentrant for its owning thread (one lease, one token, however
 * deep); other threads of this process wait on a local lock and other processes at the issuer;
 * an unused lock's local state is dropped by {@link #expireUnusedOlderThan}; {@link #renewLock}
 * extends the owning thread's lease to now + ttl. Unlike them, a held lock is kept alive by
 * default (renewed every ttl/3 until unlock): a lease then ends only when its holder stops
 * (crash, pause past the ttl, lost backend), and {@link FencedLock#isLost()} says so.
 *
 * <p>Several keys as one lock, all or none, is the one thing {@code LockRegistry} has no shape
 * for: {@link #obtainAll} answers a {@link FencedMultiLock}, a {@code Lock} whose first hold
 * takes every key's lease (a fencegate {@link MultiLock} group: canonical order, no deadlock
 * between crossing key sets) and whose {@link FencedMultiLock#tokens()} are the keys' tokens.
 *
 * <p>Nor has it one for read-write locks or semaphores: {@link #readWriteLock} answers a
 * {@link FencedReadWriteLock} (shared read leases, whose tokens make fenced reads, beside the key's
 * exclusive {@link FencedLock}), and {@link #semaphore} a {@link FencedSemaphore}, whose
 * {@link FencedPermit}s each hold a slot with its own lock and token.
 */
public final class FencedLockRegistry implements ExpirableLockRegistry, RenewableLockRegistry, AutoCloseable {

    private final LeaseIssuer issuer;
    private final Duration ttl;
    private final String lockPrefix;
    private final boolean keepAlive;
    private final Duration callTimeout;
    private final LeaseWatchdog watchdog;
    private final MultiLock multiLock;
    private final ConcurrentMap<String, FencedLock> locks = new ConcurrentHashMap<>();
    private final ConcurrentMap<List<String>, FencedMultiLock> multiLocks = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, FencedReadLock> readLocks = new ConcurrentHashMap<>();

    /** Leases of {@code ttl}, kept alive while held; lock names are the keys. */
    public FencedLockRegistry(LeaseIssuer issuer, Duration ttl) {
        this(issuer, ttl, "", true, Duration.ofSeconds(10));
    }

    /**
     * @param lockPrefix  put before each key to make the lock's name (e.g. {@code "orders/"})
     * @param keepAlive   renew held leases every ttl/3; false: the holder renews ({@link #renewLock})
     * @param callTimeout bound on one issuer call, on top of the time a caller chose to wait
     */
    public FencedLockRegistry(LeaseIssuer issuer, Duration ttl, String lockPrefix, boolean keepAlive, Duration callTimeout) {
        this.issuer = Objects.requireNonNull(issuer, "issuer");
        this.ttl = positive("ttl", ttl);
        this.lockPrefix = Objects.requireNonNull(lockPrefix, "lockPrefix");
        this.keepAlive = keepAlive;
        this.callTimeout = positive("callTimeout", callTimeout);
        this.watchdog = new LeaseWatchdog(issuer);
        this.multiLock = new MultiLock(issuer);
    }

    @Override
    public FencedLock obtain(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lock keys must be Strings, was " + lockKey);
        }
        return locks.computeIfAbsent(key, k -> new FencedLock(this, k));
    }

    /**
     * One lock over several keys, all or none: locking it takes a lease on every key (each with
     * its own token, {@link FencedMultiLock#tokens()}), or none if any key stays held; unlocking
     * releases them all. The same set of keys, in any order, answers the same lock.
     *
     * @throws IllegalArgumentException for no keys, more than {@link MultiLock#MAX_LOCKS}, a key
     *     twice, or a lock name the issuer refuses
     */
    public FencedMultiLock obtainAll(Collection<String> keys) {
        if (keys == null || keys.isEmpty()) {
            throw new IllegalArgumentException("obtainAll needs at least one key");
        }
        List<String> names = keys.stream().map(key -> lockPrefix + Objects.requireNonNull(key, "a key is null")).toList();
        int prefix = lockPrefix.length();
        List<String> order = MultiLock.canonicalOrder(names).stream().map(name -> name.substring(prefix)).toList();
        return multiLocks.computeIfAbsent(order, k -> new FencedMultiLock(this, k));
    }

    /**
     * The read-write lock of {@code key}: its {@link FencedReadWriteLock#writeLock()} is
     * {@link #obtain}{@code (key)}, its {@link FencedReadWriteLock#readLock()} shared read leases of
     * the same lock. Needs an issuer that keeps read leases (every shipped one does).
     */
    public FencedReadWriteLock readWriteLock(String key) {
        Objects.requireNonNull(key, "key");
        return new FencedReadWriteLock(readLocks.computeIfAbsent(key, k -> new FencedReadLock(this, k)), obtain(key));
    }

    /**
     * The fenced semaphore {@code name} of {@code permits} permits (its slots' locks are
     * {@code {lockPrefix}{name}/{slot}}). Every process names the same count: the issuer refuses
     * another on acquire ({@link IllegalArgumentException}).
     *
     * @throws IllegalArgumentException for a count below 1
     */
    public FencedSemaphore semaphore(String name, int permits) {
        Objects.requireNonNull(name, "name");
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, was " + permits);
        }
        return new FencedSemaphore(this, name, permits);
    }

    /** Drops the local state of locks nobody holds or waits for and nobody used for {@code age} ms. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long cutoff = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(age);
        locks.values().removeIf(lock -> lock.isUnusedSince(cutoff));
        multiLocks.values().removeIf(lock -> lock.isUnusedSince(cutoff));
    }

    /**
     * Extends the current thread's lease on {@code lockKey} to now + ttl; for a collection of
     * keys, every lease of the current thread's {@link #obtainAll} lock on them.
     *
     * @throws IllegalStateException if the current thread does not hold it, or its lease was lost
     */
    @Override
    public void renewLock(Object lockKey) {
        if (lockKey instanceof Collection<?> keys && keys.stream().allMatch(String.class::isInstance)) {
            obtainAll(keys.stream().map(String.class::cast).toList()).renew();
            return;
        }
        FencedLock lock = lockKey instanceof String key ? locks.get(key) : null;
        if (lock == null) {
            throw new IllegalStateException("the current thread does not hold the lock at '" + lockKey + "'");
        }
        lock.renew();
    }

    /** Stops keeping leases alive (held leases then run out by their ttl). */
    @Override
    public void close() {
        watchdog.close();
    }

    LeaseIssuer issuer() { return issuer; }
    Duration ttl() { return ttl; }
    String lockPrefix() { return lockPrefix; }
    boolean keepAlive() { return keepAlive; }
    Duration callTimeout() { return callTimeout; }
    LeaseWatchdog watchdog() { return watchdog; }
    MultiLock multiLock() { return multiLock; }

    /** Waits for an issuer call: the caller's own wait plus the call timeout. */
    <T> T await(CompletionStage<T> call, Duration wait) throws InterruptedException {
        Duration bound = wait.plus(callTimeout);
        try {
            return call.toCompletableFuture().get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IssuerUnavailableException("the issuer did not answer within " + bound, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IssuerUnavailableException("issuer call failed", e.getCause());
        }
    }

    /** True if the call answered true in time; false for false, a failure or a timeout. */
    boolean awaitQuietly(CompletionStage<Boolean> call) {
        try {
            return Boolean.TRUE.equals(await(call, Duration.ZERO));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static Duration positive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
        return value;
    }
}
