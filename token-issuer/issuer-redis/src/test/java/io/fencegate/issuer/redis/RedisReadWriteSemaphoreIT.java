package io.fencegate.issuer.redis;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.SemaphoreContract;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read-write and semaphore contracts ({@link SemaphoreContract} runs both) on the shared
 * 127.0.0.1:6379, under a random key prefix per test.
 */
class RedisReadWriteSemaphoreIT extends SemaphoreContract {

    private String prefix;
    @TempDir
    Path markDir;
    private final List<RedisLeaseIssuer> created = new CopyOnWriteArrayList<>();

    @BeforeEach
    void freshPrefix() {
        prefix = RedisTestPrefix.random();
    }

    @AfterEach
    void closeIssuersThenDeleteKeys() {
        // Before the suite's own @AfterEach: close first (close releases leases), then no key of this prefix survives.
        created.forEach(RedisLeaseIssuer::close);
        created.clear();
        RedisTestPrefix.deleteKeys(RedisTestPrefix.SHARED_URI, prefix);
    }

    @Override
    protected LeaseIssuer newIssuer() {
        RedisLeaseIssuer issuer = new RedisLeaseIssuer(new RedisIssuerOptions()
                .uri(RedisTestPrefix.SHARED_URI)
                .keyPrefix(prefix)
                .highWaterMark(new FileTokenHighWaterMark(markDir.resolve("tokens.mark"))));
        created.add(issuer);
        return issuer;
    }
}
