package io.fencegate.store.testkit;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The real issuer the suite's counter test takes tokens from: a {@link RedisLeaseIssuer} on the
 * shared Redis (127.0.0.1:6379) under a random key prefix, whose keys are deleted on close
 * (never FLUSHALL). Swap in another issuer by overriding
 * {@link AbstractGuardedStoreContractTest#newLeaseIssuer()}.
 */
final class ContractIssuer implements AutoCloseable {

    static final String REDIS_URI = "redis://127.0.0.1:6379";

    private final String prefix = "fencegate-store-contract-" + UUID.randomUUID() + ":";
    private final Path dir;
    private final LeaseIssuer issuer;

    ContractIssuer() {
        try {
            dir = Files.createTempDirectory("fencegate-contract-issuer");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        issuer = new RedisLeaseIssuer(new RedisIssuerOptions()
                .uri(REDIS_URI)
                .keyPrefix(prefix)
                .highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.mark"))));
    }

    LeaseIssuer issuer() {
        return issuer;
    }

    @Override
    public void close() {
        issuer.close();
        RedisClient client = RedisClient.create(REDIS_URI);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(1000));
                if (!page.getKeys().isEmpty()) {
                    redis.del(page.getKeys().toArray(String[]::new));
                }
                cursor = page;
            } while (!cursor.isFinished());
        } finally {
            client.shutdown();
        }
    }
}
