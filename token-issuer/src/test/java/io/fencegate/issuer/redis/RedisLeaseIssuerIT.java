package io.fencegate.issuer.redis;

import io.fencegate.issuer.AbstractLeaseIssuerContractTest;
import io.fencegate.issuer.LeaseIssuer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The LeaseIssuer contract on the shared 127.0.0.1:6379, under a random key prefix per test. */
class RedisLeaseIssuerIT extends AbstractLeaseIssuerContractTest {

    private String prefix;
    private Path markDir;

    @BeforeEach
    void freshPrefix() throws Exception {
        prefix = RedisTestPrefix.random();
        markDir = Files.createTempDirectory("fencegate-redis-mark");
    }

    @AfterEach
    void deleteKeys() {
        // Runs after the suite closed its issuers (subclass @AfterEach methods run first, but the
        // issuers' close only releases leases; keys left by a still-open issuer expire anyway).
        RedisTestPrefix.deleteKeys(RedisTestPrefix.SHARED_URI, prefix);
    }

    @Override
    protected LeaseIssuer newIssuer() {
        return new RedisLeaseIssuer(new RedisIssuerOptions()
                .uri(RedisTestPrefix.SHARED_URI)
                .keyPrefix(prefix)
                .highWaterMark(new FileTokenHighWaterMark(markDir.resolve("tokens.mark"))));
    }
}
