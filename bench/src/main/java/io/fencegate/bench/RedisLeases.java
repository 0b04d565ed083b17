package io.fencegate.bench;

import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Leases on Redis (the shared 127.0.0.1:6379, every key under one random prefix, removed at the
 * end; never FLUSHALL): fencegate's issuer against the raw Lua floor (SET NX PX + INCR in one
 * script; compare-and-delete), Redisson's RFencedLock and its plain RLock, each uncontended in both
 * call shapes (blocking threads; async chains in flight, see {@link LeaseShapes}).
 */
final class RedisLeases implements AutoCloseable {
    static final String SECTION = "Leases: Redis";
    static final String URI = "redis://127.0.0.1:6379";
    static final String FENCEGATE = "fencegate Redis";
    static final String FLOOR = "raw Lua (SET NX PX + INCR; compare-and-delete)";
    static final String FENCED_LOCK = "Redisson RFencedLock";
    private static final String ACQUIRE = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then"
            + " return redis.call('INCR', KEYS[2]) else return 0 end";
    private static final String RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then"
            + " return redis.call('DEL', KEYS[1]) else return 0 end";

    private final String prefix = "fencegate-bench:" + UUID.randomUUID() + ":";
    private final RedisClient lettuce;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisLeaseIssuer issuer;
    private final RedissonClient redisson;

    RedisLeases(Path workDir) throws Exception {
        this(workDir, URI);
    }

    /** On the Redis at {@code uri} (LeasePairCost's own server). */
    RedisLeases(Path workDir, String uri) throws Exception {
        Files.createDirectories(workDir);
        lettuce = RedisClient.create(uri);
        connection = lettuce.connect();
        issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(uri).keyPrefix(prefix + "fg:")
                .highWaterMark(new FileTokenHighWaterMark(workDir.resolve("redis-tokens.mark"))));
        org.redisson.config.Config config = new org.redisson.config.Config();
        config.useSingleServer().setAddress(uri);
        redisson = Redisson.create(config);
    }

    List<Scenario> scenarios() {
        List<Scenario> scenarios = new java.util.ArrayList<>(LeaseShapes.all(SECTION, contenders()));
        scenarios.addAll(MultiLockPairs.scenarios("Redis", issuer));
        return scenarios;
    }

    /** Every contender, fencegate first. */
    List<LeaseShapes> contenders() {
        return List.of(ZooKeeperLeases.fencegate(FENCEGATE, issuer), rawLua(), fencedLock(), plainLock());
    }

    private LeaseShapes rawLua() {
        RedisCommands<String, String> redis = connection.sync();
        RedisAsyncCommands<String, String> async = connection.async();
        String acquire = redis.scriptLoad(ACQUIRE);
        String release = redis.scriptLoad(RELEASE);
        return new LeaseShapes(FLOOR, lock -> {
            String key = prefix + "raw:" + lock;
            String id = Long.toHexString(ThreadLocalRandom.current().nextLong());
            // No waiting in the floor: a waiter polls every 0.2 ms (Redis has no queue to sleep on).
            while ((Long) redis.evalsha(acquire, ScriptOutputType.INTEGER,
                    new String[] {key, key + ":token"}, id, "60000") == 0L) {
                LockSupport.parkNanos(200_000);
            }
            redis.evalsha(release, ScriptOutputType.INTEGER, new String[] {key}, id);
        }, lock -> {
            // Uncontended only (a lock per slot): a held lock is a failure here, not a wait.
            String key = prefix + "raw:" + lock;
            String id = Long.toHexString(ThreadLocalRandom.current().nextLong());
            return async.<Long>evalsha(acquire, ScriptOutputType.INTEGER, new String[] {key, key + ":token"}, id, "60000")
                    .thenCompose(token -> {
                        if (token == 0L) {
                            throw new IllegalStateException(FLOOR + ": " + lock + " was held");
                        }
                        return async.<Long>evalsha(release, ScriptOutputType.INTEGER, new String[] {key}, id);
                    });
        });
    }

    private LeaseShapes fencedLock() {
        return new LeaseShapes(FENCED_LOCK, lock -> {
            RFencedLock fenced = redisson.getFencedLock(prefix + "rf:" + lock);
            fenced.lockAndGetToken();
            fenced.unlock();
        }, lock -> {
            // Redisson's async lock belongs to the thread that called it: unlock with that thread's id.
            RFencedLock fenced = redisson.getFencedLock(prefix + "rf:" + lock);
            long owner = Thread.currentThread().getId();
            return fenced.lockAndGetTokenAsync().thenCompose(token -> fenced.unlockAsync(owner));
        });
    }

    private LeaseShapes plainLock() {
        return new LeaseShapes("Redisson RLock", lock -> {
            RLock plain = redisson.getLock(prefix + "rl:" + lock);
            plain.lock();
            plain.unlock();
        }, lock -> {
            RLock plain = redisson.getLock(prefix + "rl:" + lock);
            long owner = Thread.currentThread().getId();
            return plain.lockAsync(owner).thenCompose(locked -> plain.unlockAsync(owner));
        });
    }

    @Override
    public void close() {
        issuer.close();
        redisson.shutdown();
        // Redisson names its token counter redisson_lock_token:{name}: match the prefix anywhere.
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
    }
}
