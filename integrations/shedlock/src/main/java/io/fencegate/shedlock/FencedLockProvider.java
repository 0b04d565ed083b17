package io.fencegate.shedlock;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseWatchdog;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link LockProvider} whose locks are fencegate leases. Jobs keep their
 * {@code @SchedulerLock} annotations; each run gets a lease with a fencing token
 * ({@link FencedJob#token()}), so a run that outlives its lock (a GC pause, a frozen VM) has its
 * late writes refused by the guard instead of overwriting the next run's.
 *
 * <p>How ShedLock's settings map:
 * <ul>
 *   <li>{@code lockAtMostFor} is the lease's ttl. The lease is renewed every ttl/3 while the job
 *       runs (ShedLock's {@code KeepAliveLockProvider} does the same), so a long job keeps its lock
 *       and a dead or frozen instance loses it after at most ttl. When renewing fails past the
 *       lease's expiry, or the issuer says it is gone, the job's {@link FencedLease#isLost()} turns
 *       true.</li>
 *   <li>{@code lockAtLeastFor}: unlock before it has passed leaves the lease held and releases it
 *       when it has (the lease's ttl covers that). If this process dies meanwhile, the lease runs
 *       out by its ttl.</li>
 *   <li>{@code LockExtender.extendActiveLock} answers a lock with the new {@code lockAtLeastFor} on
 *       the same lease and token, or nothing if the lease is lost. The lease's ttl stays.</li>
 *   <li>{@code unlock} sends the release and returns without waiting a round trip for its answer
 *       (nothing the fencing guarantee rests on happens after a job's last write). Another instance
 *       finds the lock free once the release has landed; a lock of the same name in this process
 *       waits for it; {@link #close()} waits for the releases still on their way.</li>
 * </ul>
 *
 * <p>Per run, the issuer sees one acquire and one release. The keep-alive starts only once a third
 * of the ttl has passed ({@link KeepAliveStarts}), so a job shorter than that costs no renew and
 * no timer.
 *
 * <p>Why ShedLock's own providers cannot fence: they store an expiry time per lock and overwrite
 * it, so nothing in the store grows with each grant. A fencegate lease's token does, forever.
 */
public final class FencedLockProvider implements LockProvider, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FencedLockProvider.class);
    private static final Duration SHORTEST_TTL = Duration.ofMillis(100);

    private final LeaseIssuer issuer;
    private final String lockPrefix;
    private final Duration callTimeout;
    private final LeaseWatchdog watchdog;
    private final KeepAliveStarts keepAlives;
    private final ScheduledExecutorService delayedReleases;
    /** Releases sent and not answered yet, by lock name: a lock of the same name waits for its own. */
    private final Map<String, CompletableFuture<Boolean>> releases = new ConcurrentHashMap<>();

    /** Locks named as the jobs name them, calls to the issuer bounded by 10 s. */
    public FencedLockProvider(LeaseIssuer issuer) {
        this(issuer, "", Duration.ofSeconds(10));
    }

    /**
     * @param lockPrefix  put before every job's lock name (e.g. {@code "jobs/"}), so jobs share a
     *                    metrics prefix and stay apart from other locks on the issuer
     * @param callTimeout bound on one acquire or release call to the issuer
     */
    public FencedLockProvider(LeaseIssuer issuer, String lockPrefix, Duration callTimeout) {
        this.issuer = Objects.requireNonNull(issuer, "issuer");
        this.lockPrefix = Objects.requireNonNull(lockPrefix, "lockPrefix");
        if (callTimeout == null || callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("callTimeout must be positive, was " + callTimeout);
        }
        this.callTimeout = callTimeout;
        this.watchdog = new LeaseWatchdog(issuer);
        this.keepAlives = new KeepAliveStarts(watchdog);
        ScheduledThreadPoolExecutor releases = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "fencegate-shedlock-release");
            t.setDaemon(true);
            return t;
        });
        releases.setRemoveOnCancelPolicy(true);
        this.delayedReleases = releases;
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Duration ttl = configuration.getLockAtMostFor();
        if (ttl.compareTo(SHORTEST_TTL) < 0) {
            throw new IllegalArgumentException("lockAtMostFor of '" + configuration.getName()
                    + "' must be at least " + SHORTEST_TTL.toMillis() + " ms: it is the lease's ttl, was " + ttl);
        }
        String name = lockPrefix + configuration.getName();
        CompletableFuture<Boolean> releasing = releases.get(name);
        if (releasing != null) {
            // This process's own release of the lock is still on its way: let it land first, or the
            // acquire may overtake it (the SQL issuer runs them on two connections) and find the lock
            // held by the very run that just ended.
            awaitRelease(releasing);
        }
        Optional<Lease> granted = await(issuer.acquire(name, ttl, Duration.ZERO), "acquire");
        if (granted.isEmpty()) {
            return Optional.empty();
        }
        FencedLease lease = new FencedLease(granted.get());
        KeepAliveStarts.Held keepAlive;
        try {
            keepAlive = keepAlives.hold(granted.get(), ttl, last -> {
                lease.markLost();
                LOG.warn("lease on {} (token {}) lost while its job ran", last.lock(), last.token());
            });
        } catch (IllegalStateException closed) {
            issuer.release(granted.get().leaseId()); // the provider was closed meanwhile: hand the lock back
            throw closed;
        }
        FencedJob.push(lease);
        return Optional.of(new FencedSimpleLock(lease, keepAlive, configuration.getLockAtLeastUntil()));
    }

    /**
     * Stops renewing every lease (running jobs' leases then run out by their ttl); releases that
     * unlocks started are waited for, at most the call timeout.
     */
    @Override
    public void close() {
        try {
            CompletableFuture.allOf(releases.values().toArray(CompletableFuture[]::new))
                    .get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("closed before every release answered; those leases run out by their ttl: {}", e.toString());
        }
        keepAlives.close();
        watchdog.close();
        delayedReleases.shutdownNow();
    }

    /** Sends the release and returns: the unlocking job does not wait a round trip for the answer. */
    private void releaseInBackground(FencedLease lease) {
        CompletableFuture<Boolean> release;
        try {
            release = issuer.release(lease.leaseId()).toCompletableFuture();
        } catch (RuntimeException e) { // an issuer that throws instead of failing the stage: same outcome
            release = CompletableFuture.failedFuture(e);
        }
        releases.put(lease.lock(), release);
        CompletableFuture<Boolean> sent = release;
        release.whenComplete((released, error) -> {
            releases.remove(lease.lock(), sent);
            if (error != null) {
                LOG.warn("release of {} (token {}) failed; it runs out by its ttl", lease.lock(), lease.token(), error);
            }
        });
    }

    private void awaitRelease(CompletableFuture<Boolean> release) {
        try {
            release.get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IssuerUnavailableException("interrupted while a release of the same lock was on its way", e);
        } catch (ExecutionException | TimeoutException e) {
            // a failed release was logged; the lock stays held until its ttl, and the acquire says so
        }
    }

    private <T> T await(java.util.concurrent.CompletionStage<T> call, String what) {
        try {
            return call.toCompletableFuture().get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IssuerUnavailableException("interrupted during " + what, e);
        } catch (TimeoutException e) {
            throw new IssuerUnavailableException(what + " took longer than " + callTimeout, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IssuerUnavailableException(what + " failed", e.getCause());
        }
    }

    /** One job run's hold on its lease; {@link #extend} hands over to a new instance, as ShedLock expects. */
    private final class FencedSimpleLock implements SimpleLock {
        private final FencedLease lease;
        private final KeepAliveStarts.Held keepAlive;
        private final Instant lockAtLeastUntil;
        private boolean valid = true;

        FencedSimpleLock(FencedLease lease, KeepAliveStarts.Held keepAlive, Instant lockAtLeastUntil) {
            this.lease = lease;
            this.keepAlive = keepAlive;
            this.lockAtLeastUntil = lockAtLeastUntil;
        }

        @Override
        public synchronized void unlock() {
            checkValid();
            valid = false;
            FencedJob.remove(lease);
            keepAlive.stop();
            if (lease.isLost()) {
                return; // nothing to release: the lease already ended
            }
            long holdFor = Duration.between(Instant.now(), lockAtLeastUntil).toMillis();
            if (holdFor > 0) {
                delayedReleases.schedule(() -> releaseInBackground(lease), holdFor, TimeUnit.MILLISECONDS);
            } else {
                releaseInBackground(lease); // at once, so the next run (here or elsewhere) finds the lock free
            }
        }

        @Override
        public synchronized Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            checkValid();
            if (lease.isLost() || keepAlive.isStopped()) {
                return Optional.empty();
            }
            valid = false;
            return Optional.of(new FencedSimpleLock(lease, keepAlive, Instant.now().plus(lockAtLeastFor)));
        }

        private void checkValid() {
            if (!valid) {
                throw new IllegalStateException("lock on '" + lease.lock() + "' was already unlocked or extended");
            }
        }
    }
}
