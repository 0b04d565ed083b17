package io.fencegate.issuer.sql;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseInfo;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.LeasePage;
import io.fencegate.issuer.LockNames;
import io.fencegate.issuer.Semaphores;
import io.fencegate.issuer.backend.AbstractLeaseIssuer;
import io.fencegate.issuer.backend.DaemonThreads;
import io.fencegate.issuer.backend.ExpiryChecks;
import io.fencegate.issuer.backend.LeaseIdFormat;
import io.fencegate.issuer.backend.ListCursors;
import io.fencegate.issuer.backend.LruMap;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases from a SQL database alone: PostgreSQL, MariaDB/MySQL (InnoDB) or H2. Build one with
 * {@link #builder()}; every instance on the same tables is one issuer, as gateways scale out.
 *
 * <ul>
 *   <li><b>Tokens.</b> Each lock has one fence row, never deleted. A grant is one short transaction
 *       that locks it ({@code SELECT … FOR UPDATE}), checks it is free, raises its token and writes the
 *       lease, so two instances never grant a lock twice and its tokens strictly increase. On
 *       PostgreSQL a caller not yet in line first tries the same rule as one {@code UPDATE … RETURNING}
 *       (with the grant row in the same statement), and a release is one statement too: one round
 *       trip each instead of five, the row lock and its re-read doing what {@code FOR UPDATE} does.
 *       MariaDB has no RETURNING on UPDATE, so it (and H2) always runs the transaction; so does a
 *       refused or waiting caller everywhere, as it needs the reasons and the waiter line.</li>
 *   <li><b>The issuer's clock.</b> Every time is the issuer's clock: the database server's clock
 *       ({@code clock_timestamp()}, {@code UTC_TIMESTAMP(6)}, {@code CURRENT_TIMESTAMP}) plus an
 *       offset kept in the database ({@link SqlIssuerClock}). Every instance checks each reading
 *       against its own monotonic clock ({@link SqlClockWatch}, also once a second) and moves the
 *       offset when the server's clock steps, either way, so the issuer's clock runs on without
 *       jumps: a step ahead ends no live lease early, a step back keeps no dead lease or waiter
 *       alive for the length of the step. A statement that writes or ends a lease also checks
 *       the clock reads within what the instance expects, so it never acts on a step not yet seen.
 *       A gateway whose own clock is off changes nobody's lease; its clocks only time retries and
 *       turn remaining durations into {@link Lease#expiresAt()} for the caller.</li>
 *   <li><b>Tokens and restores.</b> A token is a reading of the issuer's clock in microseconds,
 *       granted only while that reading is above the lock's last token and above the highest
 *       token this instance has granted (on any lock): never above the clock. So a token lost with
 *       a restore from an older backup was below every later reading of a clock that does not go
 *       back, and the first grant after the restore lies above it. Where the clock is behind a
 *       lock's last token (a step back no running instance saw, or a restore of a backup taken
 *       before one), the lock fails closed until the clock passes it: refused with a reason in
 *       the log and in {@link #failingClosed()}, never granted a token again.</li>
 *   <li><b>Expired or released.</b> Renew, release and the expiry watch lock the lease's row
 *       first and judge it by a clock read after the lock, so a lease is never told both released
 *       and expired.</li>
 *   <li><b>No session state.</b> Each call borrows a connection for one transaction and returns it:
 *       it works through pgbouncer in transaction mode (with notifications off).</li>
 *   <li><b>Waiting</b> is FIFO: a waiter takes a numbered row; the lock goes to the oldest live one.
 *       On PostgreSQL a release NOTIFYs that waiter's id (one LISTEN connection per instance);
 *       otherwise, and whenever that connection is down, waiters poll with a capped back-off.</li>
 * </ul>
 *
 * <p>Every statement is bounded by the statement timeout; connecting by the pool's. Returned stages
 * complete on the issuer's JDBC threads.
 */
public final class SqlLeaseIssuer extends AbstractLeaseIssuer<SqlLeaseIssuer.Id> {

    private static final Logger log = LoggerFactory.getLogger(SqlLeaseIssuer.class);
    static final LeaseIdFormat IDS = new LeaseIdFormat("sl1", 8192);
    /** Read leases' and permits' ids carry tags of their own, so a call by id goes to the right row without a search. */
    static final LeaseIdFormat READ_IDS = new LeaseIdFormat("sr1", 8192);
    static final LeaseIdFormat PERMIT_IDS = new LeaseIdFormat("sp1", 8192);

    /** What a lease is: a write lease, a read lease, or a semaphore's permit (a write lease on a slot's lock). */
    enum Kind { WRITE, READ, PERMIT }

    /** A lease id taken apart: the lease's lock (a permit's: its slot's lock), its secret, its kind. */
    record Id(String lock, String secret, Kind kind) {
        LeaseMode mode() {
            return kind == Kind.READ ? LeaseMode.READ : LeaseMode.WRITE;
        }

        /** A permit's slot, read from its slot lock's name; {@link Lease#NO_SLOT} for any other lease. */
        int slot() {
            return kind == Kind.PERMIT ? Integer.parseInt(lock.substring(lock.lastIndexOf('/') + 1)) : Lease.NO_SLOT;
        }
    }
    /** A waiter row lives this long unless its waiter refreshes it (each poll does): a dead instance's waiters leave the line soon. */
    static final long WAITER_TTL_MS = 3000;
    private static final long FIRST_BACKOFF_MS = 5;
    private static final long POLL_CAP_MS = 200;
    private static final long POLL_CAP_LISTENING_MS = 1000;
    private static final long SWEEP_EVERY_MS = 60_000;
    /** How often an idle instance reads the issuer's clock, so a step is seen (and corrected) within about this long. */
    private static final long CLOCK_READ_EVERY_MS = 1_000;

    private final DataSource dataSource;
    private final AutoCloseable ownedPool;
    private final String where;
    private final String instanceName;
    private final Duration grantRetention;
    private final LeaseTables tables;
    private final ReadLeaseTables reads;
    private final PermitTables permits;
    private final ExecutorService jdbc;
    private final CallerRuns callerRuns;
    private final ScheduledThreadPoolExecutor scheduler;
    private final SqlReleaseNotifications notifications;
    private final SqlExpiryWatch expiries;
    private final SqlIssuerGuard guard;
    private final SqlFailClosed failClosed = new SqlFailClosed();
    /**
     * The highest token this instance has granted, on any lock: no grant here goes below it, on any
     * lock, whatever the database's rows or clock say. Tokens are clock values, so one number
     * covers every lock: after a restore onto a server whose clock is behind, this instance still
     * never hands out a token it (or, for the locks it has seen, anyone) handed out before.
     */
    private final AtomicLong highestGranted = new AtomicLong();
    /** Locks whose fence row this instance has seen (rows are never deleted, but a restore may lose one: handled). */
    private final Map<String, Boolean> fenced = LruMap.synchronizedOf(100_000);
    /** Semaphores whose row and slots' fence rows this instance has seen (a count asked differently still goes to the database, which refuses it). */
    private final Map<String, Integer> semaphores = LruMap.synchronizedOf(10_000);
    private final Map<Long, Acquisition> waitersById = new ConcurrentHashMap<>();
    private final Map<Acquisition, Boolean> waiting = new ConcurrentHashMap<>();

    SqlLeaseIssuer(SqlLeaseIssuerBuilder b, DataSource dataSource, AutoCloseable ownedPool, SqlDialect dialect) throws SQLException {
        super("SQL", 100_000);
        this.dataSource = dataSource;
        this.ownedPool = ownedPool;
        this.where = b.where();
        this.instanceName = b.instanceName();
        this.grantRetention = b.grantRetention();
        int timeoutSeconds = (int) Math.max(1, b.statementTimeout().toSeconds());
        this.tables = new LeaseTables(dataSource, dialect, timeoutSeconds,
                ownedPool != null && dialect == SqlDialect.MYSQL && b.multiStatements(),
                new SqlIssuerClock(dialect, timeoutSeconds, new SqlClockWatch()));
        this.reads = new ReadLeaseTables(tables);
        this.permits = new PermitTables(tables);
        tables.ensureClock();
        tables.readClock(); // the first reading every later one is checked against
        this.jdbc = new ThreadPoolExecutor(b.threads(), b.threads(), 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                DaemonThreads.named("fencegate-sql-issuer"));
        // A blocking caller runs its own call if it waits at least a connection's and a statement's
        // timeout: the call is then bounded by the issuer's timeouts, about as long as the caller waits.
        this.callerRuns = new CallerRuns(jdbc, b.threads(), b.connectTimeout().plus(b.statementTimeout()).toNanos());
        this.scheduler = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("fencegate-sql-issuer-timer"));
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.expiries = new SqlExpiryWatch(tables, reads, scheduler, jdbc, this::leaseEnded);
        this.notifications = dialect == SqlDialect.POSTGRESQL && b.notifications()
                ? new SqlReleaseNotifications(dataSource, this::wakeWaiter) : null;
        scheduler.scheduleWithFixedDelay(() -> runQuietly(this::sweep), SWEEP_EVERY_MS, SWEEP_EVERY_MS, TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(() -> runQuietly(this::readClock), CLOCK_READ_EVERY_MS, CLOCK_READ_EVERY_MS,
                TimeUnit.MILLISECONDS);
        this.guard = new SqlIssuerGuard(dataSource, dialect, (int) Math.max(1, b.statementTimeout().toSeconds()));
        guard.start(scheduler, jdbc, b.durabilityCheckEvery());
    }

    /**
     * Why this instance refuses, to stay safe, grants it would otherwise make: every grant while the
     * database is set up so that a grant could be lost or repeated ({@link SqlIssuerGuard}), else the
     * locks whose last token is ahead of the issuer's clock. Empty while it refuses none; it clears by
     * itself once the cause is gone.
     */
    @Override
    public Optional<String> failingClosed() {
        String refusal = guard.refusal();
        return refusal != null ? Optional.of(refusal) : failClosed.reason();
    }

    /** Fails closed while the guard refuses: a grant (or renewal) the database may forget, or another set of tables may repeat, is no grant. */
    private <T> CompletableFuture<T> refusedByGuard() {
        String refusal = guard.refusal();
        return refusal == null ? null
                : CompletableFuture.failedFuture(new IssuerUnavailableException("SQL lease issuer at " + where + " refuses: " + refusal));
    }

    /** A builder: {@code SqlLeaseIssuer.builder().dataSource(pool).build()}. */
    public static SqlLeaseIssuerBuilder builder() {
        return new SqlLeaseIssuerBuilder();
    }

    /** The delay is kept in the lock's row ({@code free_us}), so every instance honours it. */
    @Override
    protected CompletionStage<Optional<Lease>> grant(String lock, long ttlMs, Duration wait, long lockDelayMs) {
        CompletableFuture<Optional<Lease>> refused = refusedByGuard();
        if (refused != null) {
            return refused;
        }
        return start(new Acquisition(Kind.WRITE, lock, 0, ttlMs, lockDelayMs, wait));
    }

    /** A read lease: its own row, and the fence row standing for the read leases ({@link ReadLeaseTables}). */
    @Override
    protected CompletionStage<Optional<Lease>> grantRead(String lock, long ttlMs, Duration wait, long lockDelayMs) {
        CompletableFuture<Optional<Lease>> refused = refusedByGuard();
        return refused != null ? refused : start(new Acquisition(Kind.READ, lock, 0, ttlMs, lockDelayMs, wait));
    }

    /** A permit: a write lease on the first free slot's lock, with its lock-delay, granted under the semaphore's row lock ({@link PermitTables}). */
    @Override
    protected CompletionStage<Optional<Lease>> grantPermit(String semaphore, int count, long ttlMs, Duration wait, long lockDelayMs) {
        CompletableFuture<Optional<Lease>> refused = refusedByGuard();
        return refused != null ? refused : start(new Acquisition(Kind.PERMIT, semaphore, count, ttlMs, lockDelayMs, wait));
    }

    private CompletionStage<Optional<Lease>> start(Acquisition acquisition) {
        waiting.put(acquisition, Boolean.TRUE);
        acquisition.tryNow();
        return acquisition.result;
    }

    /** Ids of this format whose lock passes the lock-name rule; any other answers "no lease" without a round trip. */
    @Override
    protected Optional<Id> parseLeaseId(String leaseId) {
        Optional<Id> id = IDS.parse(leaseId).map(p -> new Id(p.subject(), p.secret(), Kind.WRITE))
                .or(() -> READ_IDS.parse(leaseId).map(p -> new Id(p.subject(), p.secret(), Kind.READ)))
                .or(() -> PERMIT_IDS.parse(leaseId).filter(p -> p.subject().matches("(?s).+/(0|[1-9][0-9]{0,3})"))
                        .map(p -> new Id(p.subject(), p.secret(), Kind.PERMIT)));
        return id.filter(i -> {
            try {
                LockNames.check(i.lock());
                return true;
            } catch (IllegalArgumentException e) {
                return false;
            }
        });
    }

    /** The id's subject is the lock. */
    @Override
    protected Optional<String> lockOfId(Id id) {
        return Optional.of(id.lock());
    }

    @Override
    protected CompletionStage<Optional<Lease>> renewLease(String leaseId, Id id) {
        CompletableFuture<Optional<Lease>> refused = refusedByGuard();
        if (refused != null) {
            return refused;
        }
        return liveLease(leaseId, id, true);
    }

    /** A renew's lease lives its ttl from now; a found one what the database says is left of it. */
    private CompletionStage<Optional<Lease>> liveLease(String leaseId, Id id, boolean renew) {
        return call(() -> {
            long sent = System.currentTimeMillis();
            byte[] key = key(id.lock());
            LeaseTables.Live live = id.kind() == Kind.READ
                    ? (renew ? reads.renew(key, id.secret()) : reads.find(key, id.secret()))
                    : (renew ? tables.renew(key, id.secret()) : tables.find(key, id.secret()));
            return live == null ? Optional.empty() : Optional.of(new Lease(id.lock(), leaseId, live.token(),
                    sent + (renew ? live.ttlMs() : live.remainingMs()), Lease.UNKNOWN_START, id.mode(), id.slot()));
        });
    }

    @Override
    protected CompletionStage<Boolean> releaseLease(String leaseId, Id id) {
        return call(() -> releaseNow(id));
    }

    private boolean releaseNow(Id id) throws Exception {
        Long token = id.kind() == Kind.READ ? reads.release(key(id.lock()), id.secret()) : tables.release(key(id.lock()), id.secret());
        if (token == null) {
            return false;
        }
        expiries.forget(id.secret());
        wakeOldestLocalWaiter(id.lock());
        if (id.kind() == Kind.PERMIT) {
            wakeOldestLocalWaiter(id.lock().substring(0, id.lock().lastIndexOf('/')));
        }
        return true;
    }

    private static Id idOf(Lease lease, String secret) {
        return new Id(lease.lock(), secret, lease.isPermit() ? Kind.PERMIT : lease.mode() == LeaseMode.READ ? Kind.READ : Kind.WRITE);
    }

    @Override
    protected CompletionStage<Boolean> isGranted(String lock, long token) {
        // Also the gateway's health probe: it says DOWN, and why, while grants are refused.
        CompletableFuture<Boolean> refused = refusedByGuard();
        if (refused != null) {
            return refused;
        }
        return call(() -> tables.wasGranted(key(lock), token));
    }

    @Override
    protected boolean grantsReadLeases() {
        return true;
    }

    /** A read lease's grant is marked in its grant row, its reader row and the fence row: a store refuses it a write. */
    @Override
    protected CompletionStage<Optional<LeaseMode>> grantedModeOf(String lock, long token) {
        CompletableFuture<Optional<LeaseMode>> refused = refusedByGuard();
        if (refused != null) {
            return refused;
        }
        return call(() -> reads.mode(key(lock), token));
    }

    @Override
    protected CompletionStage<Optional<Lease>> findLease(String leaseId, Id id) {
        return liveLease(leaseId, id, false);
    }

    @Override
    protected CompletionStage<Boolean> isReleased(Lease lease) {
        return parseLeaseId(lease.leaseId())
                .map(id -> call(() -> (id.kind() == Kind.READ ? reads.standing(key(id.lock()), id.secret(), lease.token())
                        : tables.standing(key(id.lock()), id.secret(), lease.token())).released()))
                .orElseGet(() -> CompletableFuture.completedFuture(false));
    }

    @Override
    protected CompletionStage<LeasePage> listPage(String lockPrefix, String after, int limit) {
        return call(() -> {
            long sent = System.currentTimeMillis();
            List<LeaseTables.Listed> rows = tables.list(lockPrefix.getBytes(StandardCharsets.UTF_8),
                    after == null ? null : after.getBytes(StandardCharsets.UTF_8), limit);
            List<LeaseInfo> leases = new ArrayList<>();
            for (int i = 0; i < Math.min(limit, rows.size()); i++) {
                LeaseTables.Listed row = rows.get(i);
                leases.add(new LeaseInfo(new String(row.lockName(), StandardCharsets.UTF_8), row.token(),
                        sent + row.remainingMs(), row.grantedBy() == null ? "" : row.grantedBy(),
                        row.read() ? LeaseMode.READ : LeaseMode.WRITE));
            }
            if (rows.size() <= limit) {
                return new LeasePage(leases, Optional.empty());
            }
            // The cursor is a lock name: a page ends with a lock's last lease, so the next page loses none of its
            // read leases. (A lock with more read leases than one page holds shows its first page's worth.)
            String last = leases.get(leases.size() - 1).lock();
            if (new String(rows.get(limit).lockName(), StandardCharsets.UTF_8).equals(last)
                    && !leases.get(0).lock().equals(last)) {
                leases.removeIf(l -> l.lock().equals(last));
            }
            return new LeasePage(leases, Optional.of(ListCursors.encode(leases.get(leases.size() - 1).lock())));
        });
    }

    /** Fails the waiting calls, releases the leases granted here that are still held, then closes. Bounded in time. */
    @Override
    protected void shutdown() {
        new ArrayList<>(waiting.keySet()).forEach(a -> a.fail(new IssuerUnavailableException("SQL lease issuer closed while waiting")));
        List<CompletableFuture<Boolean>> releases = new ArrayList<>();
        for (ExpiryChecks.Tracked t : expiries.drain()) {
            releases.add(supply(() -> releaseNow(idOf(t.lease, t.secret))).exceptionally(e -> false));
        }
        try {
            CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.warn("SQL lease issuer closed without releasing every lease (they end at their ttl): {}", e.toString());
        }
        if (notifications != null) {
            notifications.close();
        }
        scheduler.shutdownNow();
        jdbc.shutdown();
        try {
            jdbc.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        jdbc.shutdownNow();
        if (ownedPool != null) {
            try {
                ownedPool.close();
            } catch (Exception e) {
                log.warn("SQL lease issuer: closing its pool failed: {}", e.toString());
            }
        }
    }

    // ------------------------------------------------------------------ plumbing

    private interface JdbcCall<T> {
        T run() throws Exception;
    }

    private <T> CompletionStage<T> call(JdbcCall<T> call) {
        return supply(call);
    }

    private <T> CompletableFuture<T> supply(JdbcCall<T> call) {
        CallerRuns.Answer<T> result = callerRuns.answer();
        try {
            callerRuns.submit(result, () -> {
                try {
                    result.complete(call.run());
                } catch (Exception e) {
                    result.completeExceptionally(mapError(e));
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(closedError());
        }
        return result;
    }

    private Throwable mapError(Throwable error) {
        if (error instanceof IssuerUnavailableException || error instanceof IllegalArgumentException) {
            return error;
        }
        return new IssuerUnavailableException("SQL lease issuer at " + where + " failed: " + error.getMessage(), error);
    }

    private void runQuietly(Runnable task) {
        try {
            jdbc.execute(task);
        } catch (RejectedExecutionException closing) {
            // closing
        }
    }

    private void readClock() {
        try {
            tables.readClock();
        } catch (Exception e) {
            log.debug("SQL lease issuer: reading the clock failed: {}", e.toString());
        }
    }

    /** Deletes rows long dead (every minute; package-private so a test can sweep at a moment of its choosing). */
    void sweep() {
        try {
            tables.sweep(grantRetention.toMillis());
        } catch (Exception e) {
            log.debug("SQL lease issuer: sweep failed: {}", e.toString());
        }
    }

    private void wakeWaiter(long waiterId) {
        Acquisition a = waitersById.get(waiterId);
        if (a != null) {
            a.wake();
        }
    }

    /** A release here wakes this instance's oldest waiter on the lock (others hear a NOTIFY, or poll). */
    private void wakeOldestLocalWaiter(String lock) {
        waitersById.values().stream().filter(a -> a.lock.equals(lock))
                .min(Comparator.comparingLong(a -> a.waiterId))
                .ifPresent(Acquisition::wake);
    }

    private long pollCapMs() {
        return notifications != null && notifications.listening() ? POLL_CAP_LISTENING_MS : POLL_CAP_MS;
    }

    private static byte[] key(String lock) {
        return sha256(lock.getBytes(StandardCharsets.UTF_8));
    }

    /** The fence row's key: SHA-256 of the name's UTF-8 bytes (names are up to 4096 bytes, past any index entry). */
    static byte[] sha256(byte[] name) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(name);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** One acquire call: tries, and while the lock (or every permit) is held and time remains, waits in line. */
    private final class Acquisition {
        final Kind kind;
        /** The lock, or for a permit the semaphore's name. */
        final String lock;
        /** The lock's fence key, or the semaphore's key (its line's too). */
        final byte[] key;
        final byte[] name;
        final int count;
        final List<byte[]> slotKeys;
        final long ttlMs;
        final long delayMs;
        final long deadlineNanos;
        final boolean waits;
        final String secret = LeaseIdFormat.newSecret();
        final CallerRuns.Answer<Optional<Lease>> result = callerRuns.answer();
        final AtomicBoolean inFlight = new AtomicBoolean();
        volatile boolean wokenWhileInFlight;
        volatile long waiterId;
        volatile ScheduledFuture<?> timer;
        long backoffMs = FIRST_BACKOFF_MS;

        Acquisition(Kind kind, String lock, int count, long ttlMs, long delayMs, Duration wait) {
            this.kind = kind;
            this.lock = lock;
            this.name = lock.getBytes(StandardCharsets.UTF_8);
            this.count = count;
            if (kind == Kind.PERMIT) {
                // 0xFF never occurs in UTF-8: no lock's key is a semaphore's.
                byte[] marked = new byte[name.length + 1];
                marked[0] = (byte) 0xFF;
                System.arraycopy(name, 0, marked, 1, name.length);
                this.key = sha256(marked);
                List<byte[]> slots = new ArrayList<>(count);
                for (int k = 0; k < count; k++) {
                    slots.add(key(Semaphores.slotLock(lock, k)));
                }
                this.slotKeys = slots;
            } else {
                this.key = sha256(name);
                this.slotKeys = List.of();
            }
            this.ttlMs = ttlMs;
            this.delayMs = delayMs;
            this.deadlineNanos = System.nanoTime() + wait.toNanos();
            this.waits = !wait.isZero();
        }

        void wake() {
            wokenWhileInFlight = true;
            tryNow();
        }

        void tryNow() {
            if (result.isDone() || !inFlight.compareAndSet(false, true)) {
                return;
            }
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
            wokenWhileInFlight = false;
            try {
                callerRuns.submit(result, this::attempt);
            } catch (RejectedExecutionException e) {
                inFlight.set(false);
                fail(closedError());
            }
        }

        private void attempt() {
            try {
                if (isClosed()) {
                    fail(new IssuerUnavailableException("SQL lease issuer closed while waiting"));
                    return;
                }
                // Before the transaction: the lease's expiry counts from here, never later than the database's.
                long sentMs = System.currentTimeMillis();
                long sentNanos = System.nanoTime();
                LeaseTables.Attempt answer = grantOnce();
                if (answer.granted()) {
                    granted(answer.token(), answer.slot(), sentMs, sentNanos);
                    return;
                }
                long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
                if (answer.refusal() == LeaseTables.Refusal.TOKEN_AHEAD_OF_CLOCK) {
                    failClosed.refused(lock, answer.busyMs());
                    if (!waits || remainingMs <= 0) {
                        fail(new IssuerUnavailableException("SQL lease issuer fails closed on lock '" + lock + "': its last token is "
                                + answer.busyMs() + " ms ahead of the issuer's clock; granted again once the clock passes it"));
                        return;
                    }
                    retryIn(Math.min(remainingMs, Math.min(answer.busyMs(), pollCapMs())));
                    return;
                }
                if (!waits || remainingMs <= 0) {
                    leaveLine();
                    result.complete(Optional.empty());
                    waiting.remove(this);
                    return;
                }
                if (!answer.waiterLive()) {
                    // First refusal, or our row outlived its ttl (a long pause): take a (new) place in line.
                    leaveLine();
                    waiterId = tables.addWaiter(key, WAITER_TTL_MS, kind == Kind.READ);
                    waitersById.put(waiterId, this);
                    retryIn(0);
                    return;
                }
                long delay = Math.min(backoffMs, remainingMs);
                if (answer.busyMs() > 0) {
                    delay = Math.min(delay, answer.busyMs());
                }
                // A semaphore's waiters hear no NOTIFY (a release notifies its slot's line): they poll at the short cap.
                backoffMs = Math.min(backoffMs * 2, kind == Kind.PERMIT ? POLL_CAP_MS : pollCapMs());
                retryIn(delay);
            } catch (Exception e) {
                fail(mapError(e));
            }
        }

        private LeaseTables.Attempt grantOnce() throws Exception {
            for (int i = 0; i < 2; i++) {
                ensureRows();
                long floor = highestGranted.get();
                if (kind == Kind.WRITE && waiterId == 0 && tables.grantsAtOnce()) {
                    Long token = tables.grantFree(key, secret, ttlMs, delayMs, floor, instanceName);
                    if (token != null) {
                        return new LeaseTables.Attempt(true, token, 0, false);
                    }
                }
                LeaseTables.Attempt answer = attemptInTransaction(floor);
                if (answer != null && answer.refusal() == LeaseTables.Refusal.CLOCK_MOVED) {
                    answer = attemptInTransaction(floor);
                }
                if (answer != null) {
                    return answer;
                }
                // A row is gone (a restore from before the lock or semaphore existed): create it again.
                fenced.remove(lock);
                semaphores.remove(lock);
            }
            throw new IllegalStateException("the rows of '" + lock + "' keep vanishing");
        }

        private void ensureRows() throws Exception {
            if (kind != Kind.PERMIT) {
                if (!fenced.containsKey(lock)) {
                    tables.ensureFence(key, name);
                    fenced.put(lock, Boolean.TRUE);
                }
                return;
            }
            if (!Integer.valueOf(count).equals(semaphores.get(lock))) {
                int kept = permits.ensureSemaphore(key, name, count);
                if (kept != count) {
                    throw PermitTables.otherCount(lock, kept, count);
                }
                for (int k = 0; k < count; k++) {
                    tables.ensureFence(slotKeys.get(k), Semaphores.slotLock(lock, k).getBytes(StandardCharsets.UTF_8));
                }
                semaphores.put(lock, count);
            }
        }

        private LeaseTables.Attempt attemptInTransaction(long floor) throws Exception {
            return switch (kind) {
                case WRITE -> tables.grant(key, secret, ttlMs, delayMs, waiterId, WAITER_TTL_MS, floor, instanceName);
                case READ -> reads.grant(key, secret, ttlMs, delayMs, waiterId, WAITER_TTL_MS, floor, instanceName);
                case PERMIT -> permits.grant(key, lock, count, slotKeys, secret, ttlMs, delayMs, waiterId, WAITER_TTL_MS, floor, instanceName);
            };
        }

        private void retryIn(long delayMs) {
            inFlight.set(false);
            if (wokenWhileInFlight || delayMs <= 0) {
                tryNow();
                return;
            }
            try {
                timer = scheduler.schedule(this::tryNow, delayMs, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                fail(new IssuerUnavailableException("SQL lease issuer closed while waiting"));
            }
        }

        private void granted(long token, int slot, long sentMs, long sentNanos) {
            failClosed.granted(lock);
            waitersById.remove(waiterId);
            waiterId = 0;
            highestGranted.accumulateAndGet(token, Math::max);
            String leaseLock = kind == Kind.PERMIT ? Semaphores.slotLock(lock, slot) : lock;
            LeaseIdFormat ids = kind == Kind.READ ? READ_IDS : kind == Kind.PERMIT ? PERMIT_IDS : IDS;
            Id id = new Id(leaseLock, secret, kind);
            rememberGrant(leaseLock, token, id.mode());
            Lease lease = new Lease(leaseLock, ids.format(leaseLock, secret), token, sentMs + ttlMs, sentNanos, id.mode(), id.slot());
            expiries.track(lease, secret, lease.expiresAt() - System.currentTimeMillis());
            waiting.remove(this);
            if (!result.complete(Optional.of(lease))) {
                try {
                    releaseNow(id); // nobody will ever see this lease (the issuer closed)
                } catch (Exception e) {
                    log.debug("SQL lease issuer: release of an unseen lease failed: {}", e.toString());
                }
            }
            if (kind == Kind.READ) {
                // Readers waiting here behind the same writer may share the lock now: each asks again.
                waitersById.values().stream().filter(a -> a.kind == Kind.READ && a.lock.equals(lock)).forEach(Acquisition::wake);
            }
        }

        /** Leaves the line (best effort: a row left behind expires after {@link #WAITER_TTL_MS}). */
        private void leaveLine() {
            long id = waiterId;
            if (id > 0) {
                waitersById.remove(id);
                waiterId = 0;
                try {
                    tables.removeWaiter(id);
                } catch (Exception e) {
                    log.debug("SQL lease issuer: leaving the line failed: {}", e.toString());
                }
            }
        }

        void fail(Throwable error) {
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
            waiting.remove(this);
            if (result.completeExceptionally(error)) {
                long id = waiterId;
                if (id > 0) {
                    waitersById.remove(id);
                    try {
                        jdbc.execute(this::leaveLine);
                    } catch (RejectedExecutionException closing) {
                        // its row expires by itself
                    }
                }
            }
        }
    }
}
