package io.fencegate.spring.integration;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The registry contract on the real Redis at 127.0.0.1:6379, under a key prefix of its own. */
class RedisFencedLockRegistryIT extends FencedLockRegistryContract {
    private static final String PREFIX = "fg-si-" + ThreadLocalRandom.current().nextInt(1 << 30) + ":";
    private static Path mark;

    @BeforeAll
    static void mark() throws Exception {
        mark = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "fg-si-mark").resolve("mark");
    }

    @AfterAll
    static void cleanUp() throws Exception {
        RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            List<String> keys = c.sync().keys(PREFIX + "*");
            if (!keys.isEmpty()) {
                c.sync().del(keys.toArray(String[]::new));
            }
        } finally {
            client.shutdown();
        }
        Files.deleteIfExists(mark);
        Files.deleteIfExists(mark.resolveSibling("mark.lock"));
    }

    @Override
    protected LeaseIssuer newIssuer() {
        return new RedisLeaseIssuer(new RedisIssuerOptions().uri("redis://127.0.0.1:6379").keyPrefix(PREFIX)
                .highWaterMark(new FileTokenHighWaterMark(mark)));
    }
}
