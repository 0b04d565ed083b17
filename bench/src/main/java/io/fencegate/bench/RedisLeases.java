package io.fencegate.bench;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Leases on Redis (the shared 127.0.0.1:6379, every key under one random prefix, removed at the
 * end; never FLUSHALL): fencegate's issuer against the raw Lua floor (SET NX PX + INCR in one
 * script; compare-and-delete), Redisson's RFencedLock and its plain RLock.
 */
final class RedisLeases implements AutoCloseable {
    static final String SECTION = "Leases: Redis";
    static final String URI = "redis://127.0.0.1:6379";
    private static final String ACQUIRE = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then"
            + " return redis.call('INCR', KEYS[2]) else return 0 end";
    private static final String RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then"
            + " return redis.call('DEL', KEYS[1]) else return 0 end";

    private final String prefix = "fencegate-bench:" + UUID.randomUUID() + ":";
    private final RedisClient lettuce = RedisClient.create(URI);
    private final StatefulRedisConnection<String, String> connection = lettuce.connect();
    private final RedisLeaseIssuer issuer;
    private final RedissonClient redisson;

    RedisLeases(Path workDir) throws Exception {
        Files.createDirectories(workDir);
        issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(URI).keyPrefix(prefix + "fg:")
                .highWaterMark(new FileTokenHighWaterMark(workDir.resolve("redis-tokens.mark"))));
        org.redisson.config.Config config = new org.redisson.config.Config();
        config.useSingleServer().setAddress(URI);
        redisson = Redisson.create(config);
    }

    List<Scenario> scenarios() {
        List<LockContender> contenders = List.of(fencegate(), rawLua(), fencedLock(), plainLock());
        String unit = "acquire+release";
        return List.of(
                new Scenario(SECTION, "uncontended (a lock per worker)", unit, 1, List.copyOf(contenders)),
                new Scenario(SECTION, "uncontended (a lock per worker)", unit, 16, List.copyOf(contenders)),
                new Scenario(SECTION, "contended (one lock, 16 waiters)", unit, 16,
                        contenders.stream().map(c -> (Contender) c.onOneLock()).toList()));
    }

    private LockContender fencegate() {
        return new LockContender("fencegate Redis", false, lock -> {
            Lease lease = ZooKeeperLeases.acquired(issuer, lock);
            issuer.release(lease.leaseId()).toCompletableFuture().get(60, TimeUnit.SECONDS);
        });
    }

    private LockContender rawLua() {
        RedisCommands<String, String> redis = connection.sync();
        String acquire = redis.scriptLoad(ACQUIRE);
        String release = redis.scriptLoad(RELEASE);
        return new LockContender("raw Lua (SET NX PX + INCR; compare-and-delete)", false, lock -> {
            String key = prefix + "raw:" + lock;
            String id = Long.toHexString(ThreadLocalRandom.current().nextLong());
            // No waiting in the floor: a waiter polls every 0.2 ms (Redis has no queue to sleep on).
            while ((Long) redis.evalsha(acquire, ScriptOutputType.INTEGER,
                    new String[] {key, key + ":token"}, id, "60000") == 0L) {
                LockSupport.parkNanos(200_000);
            }
            redis.evalsha(release, ScriptOutputType.INTEGER, new String[] {key}, id);
        });
    }

    private LockContender fencedLock() {
        return new LockContender("Redisson RFencedLock", false, lock -> {
            RFencedLock fenced = redisson.getFencedLock(prefix + "rf:" + lock);
            fenced.lockAndGetToken();
            fenced.unlock();
        });
    }

    private LockContender plainLock() {
        return new LockContender("Redisson RLock", false, lock -> {
            RLock plain = redisson.getLock(prefix + "rl:" + lock);
            plain.lock();
            plain.unlock();
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
