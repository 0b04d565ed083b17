package io.fencegate.examples.support;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.UUID;

/**
 * The lock the seed articles teach: {@code SET key value NX PX ttl}, released by a
 * compare-and-delete script. No token: nothing downstream can tell a stale holder from a live one.
 * The control the demo and the transfer example run against fencegate. Needs {@code lettuce-core},
 * which this module leaves to the example that uses it (optional here).
 */
public final class RedisLock implements AutoCloseable {
    private static final String RELEASE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String keyPrefix;

    /** {@code uri} is {@code redis://host:port#keyPrefix}: the demo's own prefix, never shared keys. */
    public RedisLock(String uri) {
        int hash = uri.indexOf('#');
        this.keyPrefix = uri.substring(hash + 1);
        this.client = RedisClient.create(uri.substring(0, hash));
        this.connection = client.connect();
        this.redis = connection.sync();
    }

    /** The lock's random value while held, or null if it stayed taken for {@code wait}. */
    public String acquire(String lock, Duration ttl, Duration wait) {
        String value = UUID.randomUUID().toString();
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            if ("OK".equals(redis.set(keyPrefix + lock, value, SetArgs.Builder.nx().px(ttl.toMillis())))) {
                return value;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return null;
    }

    public void release(String lock, String value) {
        redis.eval(RELEASE, ScriptOutputType.INTEGER, new String[] {keyPrefix + lock}, value);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
