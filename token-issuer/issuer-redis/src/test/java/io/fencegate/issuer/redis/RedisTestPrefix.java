package io.fencegate.issuer.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.UUID;

/** A random key prefix on a shared Redis, and the clean-up of exactly its keys (never FLUSHALL). */
final class RedisTestPrefix {

    static final String SHARED_URI = "redis://127.0.0.1:6379";

    private RedisTestPrefix() { }

    static String random() {
        return "fencegate-test-" + UUID.randomUUID() + ":";
    }

    static long deleteKeys(String uri, String prefix) {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            long deleted = 0;
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(escape(prefix) + "*").limit(1000));
                if (!page.getKeys().isEmpty()) {
                    deleted += redis.del(page.getKeys().toArray(String[]::new));
                }
                cursor = page;
            } while (!cursor.isFinished());
            return deleted;
        } finally {
            client.shutdown();
        }
    }

    static String get(String uri, String key) {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().get(key);
        } finally {
            client.shutdown();
        }
    }

    private static String escape(String glob) {
        return glob.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
    }
}
