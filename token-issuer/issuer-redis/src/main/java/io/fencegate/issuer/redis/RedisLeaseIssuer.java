package io.fencegate.issuer.redis;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseInfo;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.LeasePage;
import io.fencegate.issuer.backend.AbstractLeaseIssuer;
import io.fencegate.issuer.backend.DaemonThreads;
import io.fencegate.issuer.backend.LeaseIdFormat;
import io.fencegate.issuer.backend.ListCursors;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases from one single-master Redis, on Lettuce.
 *
 * <ul>
 *   <li>acquire is one Lua script: SET the lock key NX PX ttl and INCR the token counter, so a held
 *       lock consumes no token; the lock's value holds the lease secret, token and ttl.</li>
 *   <li>the counter only hands out tokens below a ceiling that a durable {@link TokenHighWaterMark}
 *       already covers, so a FLUSHALL or a restart without persistence never repeats a token; nor
 *       does a restart from an older snapshot: the script grants nothing under a counter not yet
 *       checked under the live server's {@code run_id} and {@code master_replid} (the data of a
 *       server it followed with REPLICAOF may be older too), and the check moves it up to the mark
 *       ({@link RunCheckShortcut} lets acquires skip the run_id half while Redis provably still
 *       runs the process the counter was checked under).</li>
 *   <li>lease ids carry the lock name and a random secret: any instance on the same Redis and key
 *       prefix renews or releases them; release and renew compare the secret first.</li>
 *   <li>waiting acquirers wake on a release PUBLISH (sent only when a waiter marked the lock), and
 *       otherwise poll with a capped backoff or at the lock's PTTL, whichever comes first. A
 *       release wakes each issuer's longest waiting caller of the lock; it is not FIFO-fair
 *       (ZooKeeper is).</li>
 *   <li>concurrent acquires, and concurrent releases, are group-committed ({@link GroupCommit}): one
 *       script call for the calls queued behind those in flight, one answer each.</li>
 *   <li>read leases and semaphores' permits have scripts of their own ({@link SharedLeaseCalls}); a
 *       permit is a write lease on a slot's lock, so renew, release and expiry are a write lease's.</li>
 *   <li>{@code wasGranted} reads a per-lock sorted set of the latest grants. After Redis loses its
 *       data it forgets old grants and answers false for them: that only refuses writes.</li>
 * </ul>
 *
 * <p>Replicas, Sentinel and Cluster endpoints are refused at construction. Every command is
 * bounded by the command timeout and rejected at once while disconnected. Returned stages may
 * complete on Redis I/O threads: callers must not block in their callbacks.
 */
public final class RedisLeaseIssuer extends AbstractLeaseIssuer<LeaseIds.Parsed> {

    private static final Logger log = LoggerFactory.getLogger(RedisLeaseIssuer.class);
    private static final int COUNTER_REPAIRS_PER_ACQUIRE = 8;
    private static final long FIRST_BACKOFF_MS = 5;
    private static final long MAX_BACKOFF_MS = 200;
    private static final long MAX_WAITERS_MARK_MS = 5_000;
    private static final String RELEASED_MARKER_SLACK_MS = "60000";
    private static final long CLOCK_READING_MS = 1_000;

    private final RedisIssuerOptions options;
    private final String where;
    private final RedisKeys keys;
    private final ClientResources resources;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisAsyncCommands<String, String> redis;
    private final ReleaseSignals signals;
    private final ScheduledThreadPoolExecutor scheduler;
    private final ExecutorService markThread;
    private final TokenCounter counter;
    private final ExpiryWatch expiries;
    private final RedisClock clock;
    private final RunCheckShortcut shortcut;
    private final RunCheckShortcut permitShortcut;
    private final LeaseCalls calls;
    private final SharedLeaseCalls shared;
    private final Set<Acquisition> waiting = ConcurrentHashMap.newKeySet();
    /** Defence in depth: Redis's counter may never be below a token this issuer handed out. */
    private final AtomicLong highestToken = new AtomicLong();
    private volatile boolean clockReadingsPaused;

    /**
     * Connects, and refuses anything but one standalone master.
     *
     * @throws IssuerUnavailableException if Redis cannot be reached within the connect timeout
     * @throws UnsupportedRedisDeploymentException for a replica, a Sentinel or a Cluster endpoint
     */
    public RedisLeaseIssuer(RedisIssuerOptions options) {
        super("Redis", 100_000);
        options.validate();
        this.options = options;
        RedisURI uri = RedisURI.create(options.uri());
        uri.setTimeout(options.commandTimeout());
        this.where = uri.getHost() + ":" + uri.getPort();
        this.keys = new RedisKeys(options.keyPrefix());
        // Why a 1 s cap: Lettuce's default reconnect backoff reaches 30 s, so a Redis that came back
        // would stay unused (every call failing fast) for up to half a minute.
        this.resources = DefaultClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                .reconnectDelay(() -> Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
                .build();
        this.client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                // Why: queueing while disconnected would turn an outage into unbounded waits.
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(options.commandTimeout()))
                .socketOptions(SocketOptions.builder().connectTimeout(options.connectTimeout()).keepAlive(true).build())
                .build());
        StatefulRedisConnection<String, String> conn = null;
        ReleaseSignals sig = null;
        int redisMajorVersion;
        try {
            conn = client.connect();
            RedisEndpointCheck.requireSingleMaster(conn.sync(), where);
            redisMajorVersion = RedisEndpointCheck.majorVersion(conn.sync());
            sig = new ReleaseSignals(client, keys.releaseChannel());
        } catch (UnsupportedRedisDeploymentException e) {
            closeQuietly(conn, sig);
            throw e;
        } catch (RedisConnectionException e) {
            closeQuietly(conn, sig);
            throw new IssuerUnavailableException("Redis at " + where + " is unreachable: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(conn, sig);
            throw new IssuerUnavailableException("Redis at " + where + " failed the start-up checks (ROLE, INFO, "
                    + "SUBSCRIBE): " + e.getMessage(), e);
        }
        this.connection = conn;
        this.redis = conn.async();
        this.signals = sig;
        this.scheduler = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("fencegate-redis-issuer"));
        // Why: every lease schedules an expiry timer and almost every one is cancelled by a release.
        // By default a cancelled task stays queued until its delay passes, so the queue (and memory)
        // grew with the lease rate times the ttl; removed on cancel, it holds the live leases only.
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.markThread = Executors.newSingleThreadExecutor(DaemonThreads.named("fencegate-redis-mark"));
        this.counter = new TokenCounter(redis, keys, options.highWaterMark(), options.tokenBlock(),
                options.commandTimeout(), markThread);
        this.expiries = new ExpiryWatch(redis, keys, scheduler, this::leaseEnded);
        this.shortcut = new RunCheckShortcut(redis, LeaseScripts.acquire, LeaseScripts::armedAcquire, redisMajorVersion);
        this.clock = new RedisClock(redis, keys);
        this.calls = new LeaseCalls(redis, keys, shortcut, options, highestToken::get, clock, RELEASED_MARKER_SLACK_MS);
        this.permitShortcut = new RunCheckShortcut(redis, LeaseScripts.permit, LeaseScripts::armedPermit, redisMajorVersion);
        this.shared = new SharedLeaseCalls(redis, keys, permitShortcut, options, highestToken::get, clock,
                RELEASED_MARKER_SLACK_MS);
        try {
            counter.claimRedis(where);
            firstClockReading();
        } catch (RuntimeException e) {
            scheduler.shutdownNow();
            markThread.shutdownNow();
            closeQuietly(connection, signals);
            throw e;
        }
        // Why every second: a step ahead is repaired at the latest a second after it, also when no
        // grant comes to see it first; and the lease clock's course stays fresh (a narrow window).
        scheduler.scheduleWithFixedDelay(this::readClock, CLOCK_READING_MS, CLOCK_READING_MS, TimeUnit.MILLISECONDS);
    }

    /** The course every grant is checked against starts here (see {@link RedisClock}). */
    private void firstClockReading() {
        try {
            clock.read().toCompletableFuture().get(options.commandTimeout().toMillis() * 3, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IssuerUnavailableException("interrupted while reading Redis's clock", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IssuerUnavailableException("Redis at " + where + " did not answer a reading of its clock: " + e, e);
        }
    }

    private void readClock() {
        if (clockReadingsPaused) {
            return;
        }
        clock.read().exceptionally(error -> {
            log.debug("Redis lease issuer: reading Redis's clock failed (the next grant or reading tries again): {}",
                    error.toString());
            return null;
        });
    }

    /** Grants are refused while Redis's clock stepped ahead is not repaired, and after it for the locks it may have ended early. */
    @Override
    public Optional<String> failingClosed() {
        return clock.failingClosed();
    }

    /** The delay is kept in Redis (a key living ttl + delay), so every instance honours it. */
    @Override
    protected CompletionStage<Optional<Lease>> grant(String lock, long ttlMs, Duration wait, long lockDelayMs) {
        return acquisition(LeaseIds.Kind.WRITE, lock, 0, ttlMs, lockDelayMs, wait);
    }

    /** A read lease: the lock's readers hash, the lock key saying {@code r} (see read-acquire.lua). */
    @Override
    protected CompletionStage<Optional<Lease>> grantRead(String lock, long ttlMs, Duration wait, long lockDelayMs) {
        return acquisition(LeaseIds.Kind.READ, lock, 0, ttlMs, lockDelayMs, wait);
    }

    /** A write lease on the first free slot's lock (see permit.lua); waiters wait on the semaphore's name. */
    @Override
    protected CompletionStage<Optional<Lease>> grantPermit(String semaphore, int permits, long ttlMs, Duration wait, long lockDelayMs) {
        return acquisition(LeaseIds.Kind.PERMIT, semaphore, permits, ttlMs, lockDelayMs, wait);
    }

    private CompletionStage<Optional<Lease>> acquisition(LeaseIds.Kind kind, String lock, int permits, long ttlMs,
                                                         long lockDelayMs, Duration wait) {
        Acquisition acquisition = new Acquisition(kind, lock, permits, ttlMs, lockDelayMs,
                System.nanoTime() + wait.toNanos(), !wait.isZero());
        acquisition.start();
        return acquisition.result;
    }

    @Override
    protected Optional<LeaseIds.Parsed> parseLeaseId(String leaseId) {
        return LeaseIds.parse(leaseId);
    }

    @Override
    protected Optional<String> lockOfId(LeaseIds.Parsed id) {
        return Optional.of(id.lock());
    }

    @Override
    protected CompletionStage<Optional<Lease>> renewLease(String leaseId, LeaseIds.Parsed parsed) {
        String lock = parsed.lock();
        long sent = System.currentTimeMillis();
        CompletionStage<List<Object>> reply = parsed.kind() == LeaseIds.Kind.READ
                ? shared.renewRead(lock, parsed.secret())
                : LeaseScripts.renew.run(redis, new String[] {keys.lock(lock), keys.grants(lock), keys.run(), keys.delay(lock)},
                        parsed.secret(), Long.toString(options.grantRetention().toMillis()));
        return mapErrors(reply.thenApply(r -> leaseFrom(r, parsed, leaseId, sent)));
    }

    /** A renew or find script's reply: {@code [1, token, remaining ms]} is the lease, anything else none. */
    private static Optional<Lease> leaseFrom(List<Object> reply, LeaseIds.Parsed parsed, String leaseId, long sent) {
        if (LeaseScripts.first(reply) != 1) {
            return Optional.empty();
        }
        Lease lease = new Lease(parsed.lock(), leaseId, LeaseScripts.asLong(reply.get(1)), sent + LeaseScripts.asLong(reply.get(2)));
        return Optional.of(switch (parsed.kind()) {
            case WRITE -> lease;
            case READ -> lease.as(LeaseMode.READ, Lease.NO_SLOT);
            case PERMIT -> lease.as(LeaseMode.WRITE, parsed.slot());
        });
    }

    @Override
    protected CompletionStage<Boolean> releaseLease(String leaseId, LeaseIds.Parsed parsed) {
        return mapErrors(releaseNow(parsed));
    }

    private CompletionStage<Boolean> releaseNow(LeaseIds.Parsed lease) {
        String lock = lease.lock();
        String secret = lease.secret();
        CompletionStage<Long> released = switch (lease.kind()) {
            case WRITE -> calls.release(lock, secret);
            case READ -> shared.releaseRead(lock, secret);
            case PERMIT -> calls.release(lock, secret, keys.permitWaiters(lease.semaphore()));
        };
        return released
                .thenApply(answer -> {
                    if (answer == 1) {
                        expiries.forget(secret);
                    }
                    return answer == 1;
                });
    }

    @Override
    protected CompletionStage<Boolean> isGranted(String lock, long token) {
        return mapErrors(redis.zcount(keys.grants(lock), io.lettuce.core.Range.create(token, token)).thenApply(n -> n != null && n > 0));
    }

    /** Read leases are granted here: every token's mode is asked of the grant log, never assumed a write. */
    @Override
    protected boolean grantsReadLeases() {
        return true;
    }

    /** The grants log's member says the mode: {@code token} for a write grant, {@code token + "r"} for a read grant. */
    @Override
    protected CompletionStage<Optional<LeaseMode>> grantedModeOf(String lock, long token) {
        return mapErrors(redis.zrangebyscore(keys.grants(lock), io.lettuce.core.Range.create(token, token),
                        io.lettuce.core.Limit.create(0, 1))
                .thenApply(members -> members.isEmpty() ? Optional.<LeaseMode>empty()
                        : Optional.of(members.get(0).endsWith("r") ? LeaseMode.READ : LeaseMode.WRITE)));
    }

    @Override
    protected CompletionStage<Optional<Lease>> findLease(String leaseId, LeaseIds.Parsed parsed) {
        String lock = parsed.lock();
        long sent = System.currentTimeMillis();
        CompletionStage<List<Object>> reply = parsed.kind() == LeaseIds.Kind.READ
                ? shared.findRead(lock, parsed.secret())
                : LeaseScripts.find.run(redis, new String[] {keys.lock(lock), keys.run()}, parsed.secret());
        return mapErrors(reply.thenApply(r -> leaseFrom(r, parsed, leaseId, sent)));
    }

    /** The release script's marker lives the lease's ttl plus a minute (never less than its remaining ttl). */
    @Override
    protected CompletionStage<Boolean> isReleased(Lease lease) {
        return LeaseIds.parse(lease.leaseId())
                .map(parsed -> mapErrors(redis.exists(keys.released(parsed.secret())).thenApply(n -> n != null && n > 0)))
                .orElseGet(() -> CompletableFuture.completedFuture(false));
    }

    /** Index entries one page may examine, per lease asked for: bounds a page among expired entries. */
    private static final int EXAMINED_PER_LIMIT = 4;

    @Override
    protected CompletionStage<LeasePage> listPage(String lockPrefix, String after, int limit) {
        long sent = System.currentTimeMillis();
        return mapErrors(LeaseScripts.list.<List<Object>>run(redis, new String[] {keys.live(), keys.holders()},
                        keys.lock(""), lockPrefix, after == null ? "" : after, Integer.toString(limit),
                        Integer.toString(limit * EXAMINED_PER_LIMIT), keys.readers(""), keys.grants(""))
                .thenApply(reply -> {
                    List<LeaseInfo> leases = new java.util.ArrayList<>();
                    for (int i = 2; i + 4 < reply.size(); i += 5) {
                        String lock = String.valueOf(reply.get(i));
                        long token = LeaseScripts.asLong(reply.get(i + 1));
                        long pttl = LeaseScripts.asLong(reply.get(i + 2));
                        String holder = String.valueOf(reply.get(i + 3));
                        int colon = holder.indexOf(':');
                        // The holder of this very grant (token:instance, see list.lua); an older version's
                        // grant may have left none.
                        String by = colon > 0 && holder.substring(0, colon).equals(Long.toString(token))
                                ? holder.substring(colon + 1) : "";
                        LeaseMode mode = "r".equals(String.valueOf(reply.get(i + 4))) ? LeaseMode.READ : LeaseMode.WRITE;
                        if (token > 0 && pttl > 0) {
                            leases.add(new LeaseInfo(lock, token, sent + pttl, by, mode));
                        }
                    }
                    String last = String.valueOf(reply.get(0));
                    boolean more = LeaseScripts.asLong(reply.get(1)) == 1;
                    return new LeasePage(leases, more ? Optional.of(ListCursors.encode(last)) : Optional.empty());
                }));
    }

    /** Releases the leases granted here that are still held, then disconnects. Bounded in time. */
    @Override
    protected void shutdown() {
        waiting.forEach(a -> a.finish(null, new IssuerUnavailableException("Redis lease issuer closed while waiting")));
        calls.closeAcquires();
        CompletableFuture<?>[] releases = expiries.drain().stream()
                .map(t -> releaseNow(LeaseIds.parse(t.lease.leaseId()).orElseThrow()).toCompletableFuture()
                        .exceptionally(e -> false))
                .toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(releases).get(options.commandTimeout().toMillis() + 500, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.warn("Redis lease issuer closed without releasing every lease (they end at their ttl): {}", e.toString());
        }
        calls.closeReleases();
        scheduler.shutdownNow();
        markThread.shutdownNow();
        closeQuietly(connection, signals);
    }

    private void closeQuietly(StatefulRedisConnection<String, String> conn, ReleaseSignals sig) {
        try {
            if (sig != null) {
                sig.close();
            }
            if (conn != null) {
                conn.close();
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /** Whether acquires currently skip the run check (for tests). */
    boolean skipsRunCheck() {
        return shortcut.isArmed();
    }

    /** For tests that count Redis's commands: the readings of its clock a second stop (or go on). */
    void pauseClockReadings(boolean paused) {
        clockReadingsPaused = paused;
    }

    /** Whether permit acquires currently skip the run check (for tests). */
    boolean permitsSkipRunCheck() {
        return permitShortcut.isArmed();
    }

    /** Timers waiting in the scheduler's queue, cancelled ones included (for tests). */
    int scheduledTimers() {
        return scheduler.getQueue().size();
    }

    /**
     * One acquire call: tries, and while the lock is held and time remains, waits for a wake-up.
     * {@code lock} is what it waits for: the lock, or a permit's semaphore.
     */
    private final class Acquisition implements ReleaseSignals.Waiter {
        final LeaseIds.Kind kind;
        final int permits;
        final String lock;
        final long ttlMs;
        final long lockDelayMs;
        final long deadlineNanos;
        final boolean waits;
        final CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
        final AtomicBoolean inFlight = new AtomicBoolean();
        volatile boolean wokenWhileInFlight;
        /** A 'held' answer refused this call at least once (see {@link ReleaseSignals#othersWait}). */
        volatile boolean refused;
        /** Woken by a release since the last 'held' answer. */
        volatile boolean signalled;
        volatile java.util.concurrent.ScheduledFuture<?> timer;
        long backoffMs = FIRST_BACKOFF_MS;

        Acquisition(LeaseIds.Kind kind, String lock, int permits, long ttlMs, long lockDelayMs, long deadlineNanos, boolean waits) {
            this.kind = kind;
            this.permits = permits;
            this.lock = lock;
            this.ttlMs = ttlMs;
            this.lockDelayMs = lockDelayMs;
            this.deadlineNanos = deadlineNanos;
            this.waits = waits;
        }

        void start() {
            if (waits) {
                // Register before the first try, so a release right after it is not missed.
                waiting.add(this);
                signals.register(lock, this);
            }
            tryOnce();
        }

        /** A release signal: retries at once, or answers false if this call no longer waits. */
        @Override
        public boolean wake() {
            if (result.isDone()) {
                return false;
            }
            wokenWhileInFlight = true;
            signalled = true;
            tryOnce();
            return true;
        }

        void tryOnce() {
            if (result.isDone() || !inFlight.compareAndSet(false, true)) {
                return;
            }
            wokenWhileInFlight = false;
            String secret = LeaseIdFormat.newSecret();
            long sent = System.currentTimeMillis();
            long sentNanos = System.nanoTime();
            // Others waiting here were not woken by the last release: a grant marks the lock for them
            // until past this lease's ttl, so its release wakes the next.
            long othersMarkMs = signals.othersWait(lock, this) ? ttlMs + MAX_BACKOFF_MS : 0;
            long waitersMarkMs = waitersMarkMs();
            CompletionStage<List<Object>> attempt = switch (kind) {
                case WRITE -> grant(lock, secret, ttlMs, lockDelayMs, waitersMarkMs, othersMarkMs, COUNTER_REPAIRS_PER_ACQUIRE);
                case READ -> repairing(() -> shared.acquireRead(lock, secret, ttlMs, lockDelayMs, waitersMarkMs, othersMarkMs),
                        COUNTER_REPAIRS_PER_ACQUIRE);
                case PERMIT -> repairing(() -> shared.acquirePermit(lock, permits, secret, ttlMs, lockDelayMs, waitersMarkMs, othersMarkMs),
                        COUNTER_REPAIRS_PER_ACQUIRE);
            };
            attempt.whenComplete((reply, error) -> {
                if (error != null) {
                    finish(null, mapError(error));
                } else if (LeaseScripts.first(reply) == LeaseScripts.GRANTED) {
                    // The lease started no earlier than 'sent', so this expiry is never late, nor is a
                    // holder's deadline counted from 'sentNanos'.
                    long token = LeaseScripts.asLong(reply.get(1));
                    counter.prefetchIfLow(token, LeaseScripts.asLong(reply.get(2)));
                    granted(lease(secret, token, sent + ttlMs, sentNanos, reply), secret);
                } else if (LeaseScripts.first(reply) == LeaseScripts.OTHER_COUNT) {
                    String count = LeaseScripts.str(reply.get(1));
                    finish(null, new IllegalArgumentException(count.isEmpty()
                            ? "semaphore '" + lock + "' had more than " + permits + " permits (slot "
                                    + LeaseScripts.asLong(reply.get(2)) + " is still held), asked for " + permits
                            : "semaphore '" + lock + "' has " + count + " permits, asked for " + permits));
                } else {
                    held(LeaseScripts.asLong(reply.get(1)));
                }
            });
        }

        private Lease lease(String secret, long token, long expiresAt, long sentNanos, List<Object> reply) {
            if (kind == LeaseIds.Kind.PERMIT) {
                int slot = (int) LeaseScripts.asLong(reply.get(3));
                String slotLock = io.fencegate.issuer.Semaphores.slotLock(lock, slot);
                return new Lease(slotLock, LeaseIds.format(kind, slotLock, secret), token, expiresAt, sentNanos, LeaseMode.WRITE, slot);
            }
            return new Lease(lock, LeaseIds.format(kind, lock, secret), token, expiresAt, sentNanos,
                    kind == LeaseIds.Kind.READ ? LeaseMode.READ : LeaseMode.WRITE, Lease.NO_SLOT);
        }

        /**
         * How long a 'held' answer marks the lock as waited for: past this caller's last retry, and
         * at most {@value #MAX_WAITERS_MARK_MS} ms (every retry marks it again). Why the cap: a
         * writer's mark holds new readers off, so one that died waiting holds them off no longer.
         */
        private long waitersMarkMs() {
            return waits ? Math.min(MAX_WAITERS_MARK_MS,
                    Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())) + MAX_BACKOFF_MS) : 0;
        }

        private void granted(Lease lease, String secret) {
            if (signalled && kind == LeaseIds.Kind.READ) {
                // A release let this reader in, and any reader waiting here may come in too: the
                // wake-up goes on from reader to reader (a writer's 'held' answer ends the chain).
                signals.wakeNext(lock, this);
            }
            highestToken.accumulateAndGet(lease.token(), Math::max);
            rememberGrant(lease.lock(), lease.token(), lease.mode());
            expiries.track(lease, secret, lease.expiresAt() - System.currentTimeMillis());
            if (!finish(Optional.of(lease), null)) {
                releaseNow(LeaseIds.parse(lease.leaseId()).orElseThrow()); // nobody will ever see this lease (issuer closed)
            }
        }

        @Override
        public boolean refused() {
            return refused;
        }

        private void held(long pttl) {
            refused = true;
            long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (signalled && kind == LeaseIds.Kind.READ && pttl == LeaseScripts.HELD_FOR_WRITER) {
                // The release woke this reader, but a waiting writer goes first: pass the wake-up
                // on here (a writer waiting here may be next), or the lock stays free until a poll.
                signals.wakeNext(lock, this);
            }
            signalled = false;
            inFlight.set(false);
            if (!waits || remainingMs <= 0) {
                finish(Optional.empty(), null);
                return;
            }
            if (wokenWhileInFlight) {
                tryOnce();
                return;
            }
            long delay = Math.min(backoffMs, remainingMs);
            if (pttl > 0) {
                delay = Math.min(delay, pttl + 1);
            }
            backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
            try {
                timer = scheduler.schedule(this::tryOnce, Math.max(1, delay), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                finish(null, new IssuerUnavailableException("Redis lease issuer closed while waiting"));
            }
        }

        boolean finish(Optional<Lease> lease, Throwable error) {
            if (waits) {
                signals.unregister(lock, this);
                waiting.remove(this);
            }
            var t = timer;
            if (t != null) {
                t.cancel(false);
            }
            return error == null ? result.complete(lease) : result.completeExceptionally(error);
        }
    }

    /**
     * Runs the acquire script (in a batch with concurrent acquires, see {@link GroupCommit}),
     * repairing a lost or used-up token counter a bounded number of times: an element answering
     * -1 or -2 is repaired on its own and sent again.
     */
    private CompletionStage<List<Object>> grant(String lock, String secret, long ttlMs, long lockDelayMs,
            long waitersMarkMs, long othersMarkMs, int repairsLeft) {
        return repairing(() -> calls.acquire(new LeaseCalls.Acquire(lock, secret, ttlMs, lockDelayMs, waitersMarkMs, othersMarkMs)),
                repairsLeft);
    }

    /**
     * Runs a granting script, repairing what it answers -1, -2 or -4 for (the counter, or a step of
     * Redis's clock), at most {@code repairsLeft} times.
     */
    private CompletionStage<List<Object>> repairing(java.util.function.Supplier<CompletionStage<List<Object>>> script, int repairsLeft) {
        return script.get()
                .thenCompose(reply -> {
                    long code = LeaseScripts.first(reply);
                    if (code != LeaseScripts.COUNTER_LOST && code != LeaseScripts.NEED_BLOCK && code != LeaseScripts.CLOCK_MOVED) {
                        return CompletableFuture.completedFuture(reply);
                    }
                    if (repairsLeft == 0) {
                        return CompletableFuture.failedFuture(new IssuerUnavailableException(code == LeaseScripts.CLOCK_MOVED
                                ? "Redis at " + where + ": its clock kept moving off the lease clock's course (grants are"
                                        + " refused until a reading of it holds)"
                                : "Redis at " + where + ": the token counter under prefix '" + keys.prefix()
                                        + "' kept changing while it was being restored"));
                    }
                    CompletionStage<Void> repair = code == LeaseScripts.CLOCK_MOVED ? clock.read()
                            : code == LeaseScripts.COUNTER_LOST ? counter.recoverLost(highestToken.get())
                            : counter.reserveBlock(LeaseScripts.asLong(reply.get(1)));
                    return repair.thenCompose(ignored -> repairing(script, repairsLeft - 1));
                });
    }

    private <T> CompletionStage<T> mapErrors(CompletionStage<T> stage) {
        CompletableFuture<T> mapped = new CompletableFuture<>();
        stage.whenComplete((value, error) -> {
            if (error != null) {
                mapped.completeExceptionally(mapError(error));
            } else {
                mapped.complete(value);
            }
        });
        return mapped;
    }

    private Throwable mapError(Throwable error) {
        Throwable cause = LeaseScripts.unwrap(error);
        if (cause instanceof IssuerUnavailableException || cause instanceof IllegalArgumentException) {
            return cause;
        }
        return new IssuerUnavailableException("Redis at " + where + " failed: " + cause, cause);
    }

}
