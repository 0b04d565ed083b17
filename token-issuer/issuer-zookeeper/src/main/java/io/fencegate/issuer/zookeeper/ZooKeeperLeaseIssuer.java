package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.LeasePage;
import io.fencegate.issuer.LockNames;
import io.fencegate.issuer.Semaphores;
import io.fencegate.issuer.backend.AbstractLeaseIssuer;
import io.fencegate.issuer.backend.DaemonThreads;
import io.fencegate.issuer.backend.InstanceNames;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ZKConfig;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.PathUtils;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Leases from a ZooKeeper ensemble, through Apache Curator: a FIFO-fair read-write lock per name
 * (write leases exclusive, read leases shared, a waiting writer ahead of later readers), fenced
 * semaphores whose permits are write leases on slot locks ({@link PermitAcquisition}), and a
 * fencing token per grant (see {@link TokenMode}).
 *
 * <p>A lease ends when released (through any issuer instance on the ensemble), when its ttl
 * passes without a renew (kept by this issuer's clock, not the session timeout, so short ttls
 * hold), or when this issuer's session is lost. Listeners hear of the last two.
 *
 * <pre>{@code
 * try (LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString("127.0.0.1:2181").build()) {
 *     Optional<Lease> lease = issuer.acquire("orders/42", Duration.ofSeconds(10), Duration.ofSeconds(2))
 *             .toCompletableFuture().join();
 * }
 * }</pre>
 */
public final class ZooKeeperLeaseIssuer extends AbstractLeaseIssuer<LeaseIds.Parsed> {

    /** A renew or release re-reads the node when a concurrent renew changed it; this many times. */
    private static final int MAX_VERSION_RACES = 5;

    private final CuratorFramework client;
    private final boolean ownsClient;
    private final IssuerParts parts;
    private final TokenModeMarker modeMarker;
    private final ScheduledThreadPoolExecutor scheduler;
    private final Set<Acquisition> pending = ConcurrentHashMap.newKeySet();
    private final Set<PermitAcquisition> pendingPermits = ConcurrentHashMap.newKeySet();
    private final SemaphoreCounts semaphores;
    /** The permits released here: the slot a permit acquire tries first. */
    private final FreedSlots freedSlots = new FreedSlots();
    private final ConnectionStateListener sessionWatch;
    private final Duration operationTimeout;
    private final IdleLockSweeper sweeper;
    private final LockDelays delays;
    private final LeaseListing listing;
    private final ListingConnection listingConnection;
    private final UncontendedGrant uncontended;
    private final AcquisitionDriver driver;
    private final Clock clock;

    private ZooKeeperLeaseIssuer(Builder builder) {
        super("ZooKeeper", GrantLog.CACHE_ENTRIES);
        this.operationTimeout = builder.operationTimeout;
        this.clock = builder.clock;
        this.ownsClient = builder.client == null;
        this.client = ownsClient ? newClient(builder) : builder.client;
        this.scheduler = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("fencegate-zk-issuer"));
        scheduler.setRemoveOnCancelPolicy(true);
        AsyncZk zk = new AsyncZk(builder.operationTimeout, scheduler);
        LockNodes nodes = new LockNodes(builder.root);
        this.parts = new IssuerParts(client, zk, nodes, builder.tokenMode, scheduler,
                new GrantLog(client, zk, nodes, grantCache()), new HeldLeases(client, zk, scheduler, this::ended), clock);
        this.modeMarker = new TokenModeMarker(parts);
        this.delays = new LockDelays(parts);
        this.uncontended = new UncontendedGrant(parts, modeMarker);
        this.driver = new AcquisitionDriver(parts, delays, uncontended);
        this.semaphores = new SemaphoreCounts(parts);
        this.listingConnection = ownsClient ? ListingConnection.own(() -> newClient(builder, builder.listingMaxBytes)) : ListingConnection.shared(client);
        this.listing = new LeaseListing(parts, listingConnection, builder.instanceName);
        this.sweeper = builder.forgetIdleLocksAfter.isZero() ? null
                : new IdleLockSweeper(parts, modeMarker, builder.forgetIdleLocksAfter);
        // LOST: Curator judges the session gone, and the server removes its ephemeral lease nodes.
        this.sessionWatch = (c, state) -> {
            if (state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED) {
                listing.register(); // a new session lost the old instance node
            }
            if (state == ConnectionState.LOST) {
                parts.held().sessionLost();
                // Queued nodes went with the session too; their callers get a clear error now.
                for (Acquisition acquisition : pending) {
                    acquisition.abort(new IssuerUnavailableException("ZooKeeper session lost while acquiring"));
                }
                for (PermitAcquisition acquisition : pendingPermits) {
                    acquisition.abort(new IssuerUnavailableException("ZooKeeper session lost while acquiring a permit"));
                }
            }
        };
        client.getConnectionStateListenable().addListener(sessionWatch);
        if (ownsClient) {
            client.start();
        } else {
            listing.register();
        }
    }

    /** A lease granted here ended without a release: the sweeper counts from now, then the listeners hear. */
    private void ended(Lease lease, LeaseEnd reason) {
        if (sweeper != null) {
            sweeper.leaseEnded(lease.lock(), lease.token());
        }
        leaseEnded(lease, reason);
    }

    private static CuratorFramework newClient(Builder builder) {
        return newClient(builder, 0);
    }

    /**
     * ... whose replies may be up to {@code maxReplyBytes} (0: ZooKeeper's default, 1 MiB, or the
     * {@code jute.maxbuffer} system property). Only the listing's connection asks for more: its
     * one getChildren of every lock name is the only reply that grows with what callers create.
     */
    private static CuratorFramework newClient(Builder builder, int maxReplyBytes) {
        int timeoutMs = (int) builder.operationTimeout.toMillis();
        var factory = CuratorFrameworkFactory.builder();
        if (maxReplyBytes > 0) {
            ZKClientConfig config = new ZKClientConfig();
            config.setProperty(ZKConfig.JUTE_MAXBUFFER, Integer.toString(maxReplyBytes));
            factory.zkClientConfig(config);
        }
        return factory
                .connectString(builder.connectString)
                .sessionTimeoutMs((int) builder.sessionTimeout.toMillis())
                .connectionTimeoutMs(timeoutMs)
                .retryPolicy(new ExponentialBackoffRetry(100, 3, Math.max(100, timeoutMs / 2)))
                .waitForShutdownTimeoutMs(timeoutMs)
                .build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The delay is kept in ZooKeeper, on the lock node ({@link LockDelays}): every instance honours it. */
    @Override
    protected CompletionStage<Optional<Lease>> grant(String lock, long ttlMs, Duration wait, long lockDelayMs) {
        return grant(lock, ttlMs, wait.toMillis(), lockDelayMs, LeaseMode.WRITE, Lease.NO_SLOT);
    }

    /** A read lease: in the same queue as write leases, marked read ({@link Acquisition}). */
    @Override
    protected CompletionStage<Optional<Lease>> grantRead(String lock, long ttlMs, Duration wait, long lockDelayMs) {
        return grant(lock, ttlMs, wait.toMillis(), lockDelayMs, LeaseMode.READ, Lease.NO_SLOT);
    }

    /**
     * A permit: a FIFO line for the semaphore, then a write lease on a free slot's lock ({@link
     * PermitAcquisition}), with the permit's lock-delay kept on that lock as any write lease's: a slot
     * still in its delay refuses the zero-wait grant, and the head of the line looks again shortly.
     */
    @Override
    protected CompletionStage<Optional<Lease>> grantPermit(String semaphore, int permits, long ttlMs, Duration wait, long lockDelayMs) {
        PermitAcquisition acquisition = new PermitAcquisition(parts, semaphores, freedSlots, semaphore, permits, wait.toMillis(),
                slot -> grant(Semaphores.slotLock(semaphore, slot), ttlMs, 0, lockDelayMs, LeaseMode.WRITE, slot),
                lease -> release(lease.leaseId()));
        pendingPermits.add(acquisition);
        CompletableFuture<Optional<Lease>> result = modeMarker.ensure().thenCompose(v -> acquisition.start());
        result.whenComplete((lease, error) -> pendingPermits.remove(acquisition));
        return result;
    }

    /** Read leases are granted here: every token's mode is asked of the grant log, never assumed a write. */
    @Override
    protected boolean grantsReadLeases() {
        return true;
    }

    /** The grant node's data says read; a grant the lock node records is a write. */
    @Override
    protected CompletionStage<Optional<LeaseMode>> grantedModeOf(String lock, long token) {
        return parts.grants().modeOf(lock, token);
    }

    private CompletableFuture<Optional<Lease>> grant(String lock, long ttlMs, long waitMs, long lockDelayMs, LeaseMode mode, int slot) {
        Acquisition acquisition = new Acquisition(parts, lock, ttlMs, waitMs, lockDelayMs, driver, mode, slot);
        pending.add(acquisition);
        CompletableFuture<Void> modeChecked = modeMarker.ensure();
        CompletableFuture<Optional<Lease>> result = modeChecked.isDone() && !modeChecked.isCompletedExceptionally()
                ? acquisition.start()
                : modeChecked.thenCompose(v -> acquisition.start());
        result.whenComplete((lease, error) -> pending.remove(acquisition));
        return result;
    }

    /** Lease ids naming a lease node under this root's locks, at a valid path. */
    @Override
    protected Optional<LeaseIds.Parsed> parseLeaseId(String leaseId) {
        return LeaseIds.parse(leaseId, parts.nodes().locksPath()).filter(id -> isValidPath(id.path()));
    }

    /** The id's path is {@code locks/<encoded lock>/<lease node>}: the lock is its parent's name, decoded. */
    @Override
    protected Optional<String> lockOfId(LeaseIds.Parsed id) {
        String parent = id.path().substring(0, id.path().lastIndexOf('/'));
        return LockNodes.decode(LockNodes.nameOf(parent));
    }

    @Override
    protected CompletionStage<Optional<Lease>> renewLease(String leaseId, LeaseIds.Parsed id) {
        return renew(leaseId, id, 0);
    }

    private CompletableFuture<Optional<Lease>> renew(String leaseId, LeaseIds.Parsed id, int attempt) {
        return readOwned(id).thenCompose(owned -> {
            if (owned.isEmpty()) {
                return CompletableFuture.completedFuture(Optional.<Lease>empty());
            }
            Owned lease = owned.get();
            long expiresAt = clock.millis() + lease.data.ttlMs();
            byte[] data = lease.data.withExpiresAt(expiresAt).toBytes();
            // The mark first: a mark ahead of the lease only lengthens a delay, one behind would shorten it.
            CompletableFuture<Void> marked = lease.data.lockDelayMs() == 0 ? CompletableFuture.completedFuture(null)
                    : lease.mode() == LeaseMode.READ
                    ? delays.markRead(lease.data.lock(), new LockDelays.Mark(lease.token(), lease.data.lockDelayMs(), expiresAt, true))
                    : delays.mark(lease.data.lock(), new LockDelays.Mark(lease.token(), lease.data.lockDelayMs(), expiresAt));
            return marked.thenCompose(m -> parts.zk().call("renew " + lease.path, cb -> client.setData().withVersion(lease.version)
                    .inBackground(cb).forPath(lease.path, data))).thenCompose(event -> switch (AsyncZk.code(event)) {
                        case OK -> {
                            parts.held().renewed(lease.path, event.getStat().getVersion(), expiresAt, lease.data.ttlMs());
                            yield CompletableFuture.completedFuture(Optional.of(lease.toLease(leaseId, expiresAt)));
                        }
                        case NONODE -> CompletableFuture.completedFuture(Optional.<Lease>empty());
                        // Renewed or expired concurrently: judge again from the node's new state.
                        case BADVERSION -> attempt < MAX_VERSION_RACES ? renew(leaseId, id, attempt + 1)
                                : CompletableFuture.failedFuture(new IssuerUnavailableException("renew kept racing other writes to " + lease.path));
                        default -> CompletableFuture.failedFuture(AsyncZk.unexpected("renew", event));
                    });
        });
    }

    /**
     * A lease granted here, without a lock-delay, is released in one transaction ({@link
     * UncontendedGrant#release}); any other, or one that transaction refuses, the long way: read
     * the node, clear a lock-delay, mark the grant released, delete at the version read.
     */
    @Override
    protected CompletionStage<Boolean> releaseLease(String leaseId, LeaseIds.Parsed id) {
        Optional<HeldLeases.Releasable> held = parts.held().releasable(leaseId);
        if (held.isEmpty()) {
            return release(id, 0);
        }
        HeldLeases.Releasable lease = held.get();
        return uncontended.release(lease).thenCompose(released -> {
            if (!released) {
                return release(id, 0);
            }
            released(lease.path(), lease.lease().lock(), lease.lease().token(), lease.lockVersion() >= 0);
            return CompletableFuture.completedFuture(true);
        });
    }

    /** {@code inOneTrip}: granted and released in one transaction each, so the sweep may be one too. */
    private void released(String path, String lock, long token, boolean inOneTrip) {
        parts.held().forget(path);
        if (LockNodes.isPermit(LockNodes.nameOf(path))) {
            int at = lock.lastIndexOf('/');
            try {
                freedSlots.freed(lock.substring(0, at), Integer.parseInt(lock.substring(at + 1)));
            } catch (NumberFormatException | IndexOutOfBoundsException e) {
                // not a slot's lock name: no hint
            }
        }
        if (sweeper != null) {
            sweeper.leaseEnded(lock, token, inOneTrip);
        }
    }

    private CompletableFuture<Boolean> release(LeaseIds.Parsed id, int attempt) {
        return readOwned(id).thenCompose(owned -> {
            if (owned.isEmpty()) {
                return CompletableFuture.completedFuture(false);
            }
            Owned lease = owned.get();
            // A release is a voluntary end: no lock-delay. Cleared before the delete, like the marker;
            // the read leases' mark only once no other reader is left under it.
            CompletableFuture<Void> undelayed = lease.data.lockDelayMs() == 0 ? CompletableFuture.completedFuture(null)
                    : lease.mode() == LeaseMode.READ ? delays.clearAfterRead(lease.data.lock(), LockNodes.nameOf(lease.path))
                    : delays.clear(lease.data.lock());
            return undelayed.thenCompose(v -> parts.grants().markReleased(lease.data.lock(), lease.token(), lease.mode()))
                    .thenCompose(marked -> parts.delete(lease.path, lease.version)).thenCompose(code -> switch (code) {
                case OK -> {
                    released(lease.path, lease.data.lock(), lease.token(), false);
                    yield CompletableFuture.completedFuture(true);
                }
                case NONODE -> CompletableFuture.completedFuture(false);
                case BADVERSION -> attempt < MAX_VERSION_RACES ? release(id, attempt + 1)
                        : CompletableFuture.failedFuture(new IssuerUnavailableException("release kept racing other writes to " + lease.path));
                default -> CompletableFuture.failedFuture(new IssuerUnavailableException("ZooKeeper release failed: " + code));
            });
        });
    }

    @Override
    protected CompletionStage<Boolean> isGranted(String lock, long token) {
        return parts.grants().wasGranted(lock, token);
    }

    @Override
    protected CompletionStage<Optional<Lease>> findLease(String leaseId, LeaseIds.Parsed id) {
        return readOwned(id).thenApply(owned -> owned.map(o -> o.toLease(leaseId, o.data.expiresAt())));
    }

    @Override
    protected CompletionStage<Boolean> isReleased(Lease lease) {
        try {
            LockNames.check(lease.lock());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return parts.grants().wasReleased(lease.lock(), lease.token());
    }

    @Override
    protected CompletionStage<LeasePage> listPage(String lockPrefix, String after, int limit) {
        return listing.list(lockPrefix, after, limit);
    }

    @Override
    protected void shutdown() {
        IssuerUnavailableException closing = new IssuerUnavailableException("ZooKeeper lease issuer closed");
        for (PermitAcquisition acquisition : pendingPermits) {
            acquisition.abort(closing);
        }
        for (Acquisition acquisition : pending) {
            acquisition.abort(closing);
        }
        try {
            parts.held().releaseAll().get(operationTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            // Bounded by the operation timeout; whatever is left goes with the session.
        }
        client.getConnectionStateListenable().removeListener(sessionWatch);
        // shutdown, not shutdownNow: the pending operation-timeout timers still fire, so a call
        // racing close fails in bounded time instead of waiting on a closed client forever.
        scheduler.shutdown();
        listingConnection.close();
        if (ownsClient) {
            client.close();
        }
    }

    /** A live lease node whose secret matched the id, with the version it was read at. */
    private record Owned(String path, int version, long czxid, LeaseNodeData data) {
        /** Its mode and, for a permit, its slot, as its node's name says. */
        Lease toLease(String leaseId, long expiresAt) {
            return new Lease(data.lock(), leaseId, token(), expiresAt, Lease.UNKNOWN_START, mode(), slot());
        }

        LeaseMode mode() {
            return LockNodes.modeOf(LockNodes.nameOf(path));
        }

        /** A permit's slot is its lock's last segment ({@link Semaphores#slotLock}). */
        int slot() {
            if (!LockNodes.isPermit(LockNodes.nameOf(path))) {
                return Lease.NO_SLOT;
            }
            try {
                return Integer.parseInt(data.lock().substring(data.lock().lastIndexOf('/') + 1));
            } catch (NumberFormatException e) {
                return Lease.NO_SLOT;
            }
        }

        long token() {
            org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
            stat.setCzxid(czxid);
            return data.mode().tokenOf(stat, LockNodes.nameOf(path));
        }
    }

    /**
     * Reads the lease an id names; empty unless it exists, the secret matches and it has not expired.
     * Fails like acquire when the root is pinned to the other token mode: renew and release obey the
     * root's mode too, because a release feeds this issuer's idle sweeper, which must never act on a
     * root it was not configured for (a ZXID sweep deletes lock nodes, the CVERSION counters).
     */
    private CompletableFuture<Optional<Owned>> readOwned(LeaseIds.Parsed id) {
        String path = id.path();
        return modeMarker.ensure().thenCompose(modeOk -> parts.zk().call("read lease " + path,
                        cb -> client.getData().inBackground(cb).forPath(path)))
                .thenApply(event -> owned(event, path, id.secret(), clock.millis()));
    }

    private static Optional<Owned> owned(CuratorEvent event, String path, String secret, long now) {
        Code code = AsyncZk.code(event);
        if (code == Code.NONODE) {
            return Optional.empty();
        }
        if (code != Code.OK) {
            throw AsyncZk.unexpected("read lease", event);
        }
        Optional<LeaseNodeData> data = LeaseNodeData.parse(event.getData());
        if (data.isEmpty() || !data.get().secretMatches(secret)
                // Past its expiry the lease is over even if the granting issuer has not deleted it yet.
                || data.get().expiresAt() <= now) {
            return Optional.empty();
        }
        return Optional.of(new Owned(path, event.getStat().getVersion(), event.getStat().getCzxid(), data.get()));
    }

    private static boolean isValidPath(String path) {
        try {
            PathUtils.validatePath(path);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static void requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }

    /** Default {@link Builder#listingMaxBytes}. */
    public static final int DEFAULT_LISTING_MAX_BYTES = 64 << 20;
    /** ZooKeeper's own default reply limit: a listing connection never takes less. */
    public static final int MIN_LISTING_MAX_BYTES = 0xfffff;

    /** Configures a {@link ZooKeeperLeaseIssuer}; validated at {@link #build()}. */
    public static final class Builder {
        private CuratorFramework client;
        private String connectString;
        private String root = "/fencegate";
        private TokenMode tokenMode = TokenMode.ZXID;
        private Duration operationTimeout = Duration.ofSeconds(5);
        private Duration sessionTimeout = Duration.ofSeconds(15);
        private Duration forgetIdleLocksAfter = Duration.ofMinutes(10);
        private Clock clock = Clock.systemUTC();
        private String instanceName = InstanceNames.defaultName();
        private int listingMaxBytes = DEFAULT_LISTING_MAX_BYTES;

        private Builder() { }

        /**
         * The largest reply the listing's own connection takes (default 64 MiB): a listing reads
         * every lock name under the root in one reply (ZooKeeper has no paged listing), about
         * {@code 4 + 4/3 × name bytes} per lock. Past it listings fail (503); leases never do. The
         * heap holds one such reply at a time, however many listings run. Only for an issuer that
         * owns its client: a caller's own client keeps its own setting.
         */
        public Builder listingMaxBytes(int bytes) {
            this.listingMaxBytes = bytes;
            return this;
        }

        /** How listings name this instance as the grantor of its leases (default {@code host/pid}). */
        public Builder instanceName(String instanceName) {
            this.instanceName = instanceName;
            return this;
        }

        /** A started client the caller owns and closes; the issuer does not close it. */
        public Builder client(CuratorFramework client) {
            this.client = client;
            return this;
        }

        /** Connect string for a client the issuer creates, owns and closes. */
        public Builder connectString(String connectString) {
            this.connectString = connectString;
            return this;
        }

        /** The root znode (default {@code /fencegate}). */
        public Builder root(String root) {
            this.root = root;
            return this;
        }

        public Builder tokenMode(TokenMode tokenMode) {
            this.tokenMode = tokenMode;
            return this;
        }

        /** Bound on every ZooKeeper call (default 5 s): past it the call fails IssuerUnavailableException. */
        public Builder operationTimeout(Duration operationTimeout) {
            this.operationTimeout = operationTimeout;
            return this;
        }

        /** Session timeout of an issuer-owned client (default 15 s); losing the session ends its leases. */
        public Builder sessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = sessionTimeout;
            return this;
        }

        /**
         * Removes a lock's grant log (and, in ZXID mode, its node) once no lease has been on it for
         * this long (default 10 min); {@link Duration#ZERO} keeps every lock's nodes forever. Measured
         * as elapsed time on this process's monotonic clock, so a wrong wall clock cannot remove a
         * fresh grant. A holder whose lease ended longer ago than this is refused as "not granted"
         * rather than "stale": refused either way.
         */
        public Builder forgetIdleLocksAfter(Duration idle) {
            this.forgetIdleLocksAfter = idle;
            return this;
        }

        /** The wall clock lease expiries are kept by; package-private: tests run a gateway's clock ahead. */
        Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public ZooKeeperLeaseIssuer build() {
            if ((client == null) == (connectString == null || connectString.isBlank())) {
                throw new IllegalArgumentException("exactly one of client or connectString must be set");
            }
            try {
                PathUtils.validatePath(root);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("root must be a valid znode path, was '" + root + "': " + e.getMessage(), e);
            }
            if (root.equals("/")) {
                throw new IllegalArgumentException("root must not be '/'");
            }
            Objects.requireNonNull(tokenMode, "tokenMode");
            InstanceNames.check(instanceName);
            requirePositive("operationTimeout", operationTimeout);
            if (listingMaxBytes < MIN_LISTING_MAX_BYTES) {
                throw new IllegalArgumentException("listingMaxBytes must be at least " + MIN_LISTING_MAX_BYTES
                        + " (ZooKeeper's default reply limit), was " + listingMaxBytes);
            }
            requirePositive("sessionTimeout", sessionTimeout);
            if (forgetIdleLocksAfter == null || forgetIdleLocksAfter.isNegative()) {
                throw new IllegalArgumentException("forgetIdleLocksAfter must be zero (never) or positive, was "
                        + forgetIdleLocksAfter);
            }
            return new ZooKeeperLeaseIssuer(this);
        }
    }
}
