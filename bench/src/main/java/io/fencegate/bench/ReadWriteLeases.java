package io.fencegate.bench;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.fencegate.issuer.sql.SqlLeaseIssuer;
import io.fencegate.issuer.sql.SqlLeaseIssuerBuilder;
import io.fencegate.issuer.zookeeper.TokenMode;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

/**
 * Read leases and semaphore permits, each issuer against the recipe its users run today on the
 * same backend: on ZooKeeper (an in-process {@code TestingServer}, as the ZooKeeper section)
 * Curator's {@code InterProcessReadWriteLock} read lock and {@code InterProcessSemaphoreV2}; on
 * Redis (the shared 127.0.0.1:6379, keys under a random prefix, removed at the end) Redisson's
 * {@code RReadWriteLock} read lock and {@code RSemaphore}; the SQL issuer on PostgreSQL (a schema
 * of the run's own) beside its own write lease, having no SQL peer. All in flight, at 1 and 16:
 * fencegate's and Redisson's APIs are asynchronous; Curator's recipes only block, so their calls
 * run on a pool of 16 threads, as {@link LeaseShapes#blockingOnly} does for the lease sections.
 *
 * <p>Every reader of a scenario reads the one lock ({@code shared}): read leases exist to be held
 * together. Every permit comes from one semaphore of {@link #PERMITS} permits, so at 16 in flight
 * they are all in use at times and a permit must be found among them.
 */
final class ReadWriteLeases implements AutoCloseable {
    static final String SECTION = "Read leases and semaphore permits";
    static final String READ = "read lease on one shared lock";
    static final String PERMIT = "semaphore permit, " + ReadWriteLeases.PERMITS + " permits, one semaphore";
    static final String ZK_READ = "fencegate ZooKeeper (zxid), read lease";
    static final String ZK_PERMIT = "fencegate ZooKeeper (zxid), permit";
    static final String CURATOR_READ = "Curator InterProcessReadWriteLock, read lock";
    static final String CURATOR_SEMAPHORE = "Curator InterProcessSemaphoreV2";
    static final String REDIS_READ = "fencegate Redis, read lease";
    static final String REDIS_PERMIT = "fencegate Redis, permit";
    static final String REDISSON_READ = "Redisson RReadWriteLock, read lock";
    static final String REDISSON_SEMAPHORE = "Redisson RSemaphore";
    static final String SQL_READ = "fencegate SQL on PostgreSQL, read lease";
    static final String SQL_PERMIT = "fencegate SQL on PostgreSQL, permit";
    static final String SQL_WRITE = "fencegate SQL on PostgreSQL, write lease (one lock a slot)";
    static final int PERMITS = 16;
    private static final String LOCK = "shared";
    private static final String SEMAPHORE = "pool";
    private static final Duration TTL = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final List<AutoCloseable> owned = new ArrayList<>();
    private final ExecutorService curatorPool = LeaseShapes.pool("rw-curator");
    private final TestingServer zookeeper;
    private final CuratorFramework curator;
    private final String prefix = "fencegate-bench:" + UUID.randomUUID() + ":";
    private final RedisClient lettuce;
    private final StatefulRedisConnection<String, String> connection;
    private final RedissonClient redisson;
    private final String schema = WriteBenchData.freshNamespace();
    private final Path workDir;
    /** Redisson names a lock's holder by a thread id: each acquire here a distinct one, as distinct threads would be. */
    private final AtomicLong owners = new AtomicLong();

    private final String redisUri;
    /** The SQL issuer's connections, given its JDBC URL: null for a pool of the issuer's own. */
    private final Function<String, DataSource> sqlSource;

    ReadWriteLeases(Path workDir) throws Exception {
        this(workDir, RedisLeases.URI, null);
    }

    /** On the Redis at {@code redisUri}; the SQL issuer on {@code sqlSource}'s connections ({@link ReadWriteCost}). */
    ReadWriteLeases(Path workDir, String redisUri, Function<String, DataSource> sqlSource) throws Exception {
        this.workDir = Files.createDirectories(workDir);
        this.redisUri = redisUri;
        this.sqlSource = sqlSource;
        zookeeper = new TestingServer(true);
        curator = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryNTimes(3, 100));
        curator.start();
        curator.blockUntilConnected(30, TimeUnit.SECONDS);
        lettuce = RedisClient.create(redisUri);
        connection = lettuce.connect();
        org.redisson.config.Config config = new org.redisson.config.Config();
        config.useSingleServer().setAddress(redisUri);
        redisson = Redisson.create(config);
        postgres("CREATE SCHEMA " + schema);
    }

    List<Scenario> scenarios() {
        LeaseIssuer zk = own(ZooKeeperLeaseIssuer.builder().client(curator).root("/fg-rw").tokenMode(TokenMode.ZXID).build());
        LeaseIssuer redis = own(new RedisLeaseIssuer(new RedisIssuerOptions().uri(redisUri).keyPrefix(prefix + "fg:")
                .highWaterMark(new FileTokenHighWaterMark(workDir.resolve("redis-tokens.mark")))));
        String url = "jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + schema;
        SqlLeaseIssuerBuilder sqlBuilder = SqlLeaseIssuer.builder().poolSize(SqlLeases.POOL).notifications(true);
        LeaseIssuer sql = own((sqlSource == null ? sqlBuilder.jdbcUrl(url).user("postgres").password("")
                : sqlBuilder.dataSource(sqlSource.apply(url))).build());
        InterProcessReadWriteLock curatorRw = new InterProcessReadWriteLock(curator, "/curator-rw/" + LOCK);
        InterProcessSemaphoreV2 curatorSemaphore = new InterProcessSemaphoreV2(curator, "/curator-sem/" + SEMAPHORE, PERMITS);
        RSemaphore redissonSemaphore = redisson.getSemaphore(prefix + "rs:" + SEMAPHORE);
        redissonSemaphore.trySetPermits(PERMITS); // Redisson's semaphore starts with no permits: its users set them once
        List<Scenario> scenarios = new ArrayList<>();
        for (int c : new int[] {1, 16}) {
            scenarios.add(scenario(READ + ", ZooKeeper", c, read(ZK_READ, zk), curatorRead(curatorRw)));
            scenarios.add(scenario(READ + ", Redis", c, read(REDIS_READ, redis), redissonRead()));
            scenarios.add(scenario(READ + ", SQL on PostgreSQL", c, read(SQL_READ, sql), write(SQL_WRITE, sql)));
        }
        for (int c : new int[] {1, 16}) {
            scenarios.add(scenario(PERMIT + ", ZooKeeper", c, permit(ZK_PERMIT, zk), curatorPermit(curatorSemaphore)));
            scenarios.add(scenario(PERMIT + ", Redis", c, permit(REDIS_PERMIT, redis), redissonPermit(redissonSemaphore)));
            scenarios.add(scenario(PERMIT + ", SQL on PostgreSQL", c, permit(SQL_PERMIT, sql), write(SQL_WRITE, sql)));
        }
        return scenarios;
    }

    /** The session every ZooKeeper contender shares. */
    CuratorFramework curator() {
        return curator;
    }

    private static Scenario scenario(String title, int concurrency, Contender fencegate, Contender peer) {
        return new Scenario(SECTION, title + ", in flight", "acquire+release", concurrency, List.of(fencegate, peer));
    }

    private LeaseIssuer own(LeaseIssuer issuer) {
        owned.add(issuer);
        return issuer;
    }

    /** A contender keeping {@code c} of {@code op} in flight, whatever the slot. */
    private static AsyncContender inFlight(String name, Supplier<CompletionStage<?>> op) {
        return new AsyncContender(name) {
            @Override
            protected CompletionStage<?> op(int slot) {
                return op.get();
            }
        };
    }

    private static AsyncContender read(String name, LeaseIssuer issuer) {
        return inFlight(name, () -> issuer.acquire(LOCK, LeaseMode.READ, TTL, WAIT, Duration.ZERO)
                .thenCompose(lease -> released(issuer, held(lease, name))));
    }

    private static AsyncContender permit(String name, LeaseIssuer issuer) {
        return inFlight(name, () -> issuer.acquirePermit(SEMAPHORE, PERMITS, TTL, WAIT)
                .thenCompose(lease -> released(issuer, held(lease, name))));
    }

    /** The issuer's own write lease, each slot on a lock of its own: what its read lease and permit cost beside it. */
    private static AsyncContender write(String name, LeaseIssuer issuer) {
        return new AsyncContender(name) {
            @Override
            protected CompletionStage<?> op(int slot) {
                return issuer.acquire("w" + slot, TTL, WAIT).thenCompose(lease -> released(issuer, held(lease, name)));
            }
        };
    }

    private static Lease held(Optional<Lease> lease, String name) {
        return lease.orElseThrow(() -> new IllegalStateException(name + ": nothing granted within " + WAIT));
    }

    private static CompletionStage<Boolean> released(LeaseIssuer issuer, Lease lease) {
        return issuer.release(lease.leaseId()).thenApply(released -> {
            if (!released) {
                throw new IllegalStateException("lease on " + lease.lock() + " was gone at release");
            }
            return true;
        });
    }

    /** Curator's read lock: one recipe object for the lock, reentrant per thread, so each pool thread holds its own read node. */
    private AsyncContender curatorRead(InterProcessReadWriteLock lock) {
        InterProcessMutex read = lock.readLock();
        return onCuratorPool(CURATOR_READ, () -> {
            if (!read.acquire(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException(CURATOR_READ + ": not acquired within " + WAIT);
            }
            read.release();
        });
    }

    private AsyncContender curatorPermit(InterProcessSemaphoreV2 semaphore) {
        return onCuratorPool(CURATOR_SEMAPHORE, () -> {
            org.apache.curator.framework.recipes.locks.Lease lease = semaphore.acquire(WAIT.toSeconds(), TimeUnit.SECONDS);
            if (lease == null) {
                throw new IllegalStateException(CURATOR_SEMAPHORE + ": no permit within " + WAIT);
            }
            semaphore.returnLease(lease);
        });
    }

    /** Redisson's async lock belongs to a thread id: each acquire locks and unlocks with an id of its own. */
    private AsyncContender redissonRead() {
        RLock read = redisson.getReadWriteLock(prefix + "rw:" + LOCK).readLock();
        return inFlight(REDISSON_READ, () -> {
            long owner = owners.incrementAndGet();
            return read.lockAsync(owner).thenCompose(locked -> read.unlockAsync(owner));
        });
    }

    private static AsyncContender redissonPermit(RSemaphore semaphore) {
        return inFlight(REDISSON_SEMAPHORE, () -> semaphore.acquireAsync().thenCompose(acquired -> semaphore.releaseAsync()));
    }

    private AsyncContender onCuratorPool(String name, Blocking body) {
        return inFlight(name, () -> CompletableFuture.runAsync(() -> {
            try {
                body.run();
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, curatorPool));
    }

    @FunctionalInterface
    private interface Blocking {
        void run() throws Exception;
    }

    private void postgres(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
             Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : owned) {
            c.close();
        }
        curatorPool.shutdownNow();
        redisson.shutdown();
        RedisCommands<String, String> redis = connection.sync();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches("*" + prefix + "*").limit(1000));
            if (!page.getKeys().isEmpty()) {
                redis.del(page.getKeys().toArray(String[]::new));
            }
            cursor = page;
        } while (!cursor.isFinished());
        connection.close();
        lettuce.shutdown();
        curator.close();
        zookeeper.close();
        postgres("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
}
