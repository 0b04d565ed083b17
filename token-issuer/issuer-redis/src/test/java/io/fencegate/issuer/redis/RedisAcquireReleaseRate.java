package io.fencegate.issuer.redis;

import io.fencegate.issuer.testkit.AcquireReleaseRate;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@link AcquireReleaseRate} on 127.0.0.1:6379 (random prefix, cleaned up), 1 and 16 threads. Run
 * by hand; not part of the test suite. Args: [seconds per run, default 5]
 */
public final class RedisAcquireReleaseRate {

    private RedisAcquireReleaseRate() { }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 5;
        String prefix = RedisTestPrefix.random();
        Path dir = Files.createTempDirectory("fencegate-rate");
        try (RedisLeaseIssuer issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(RedisTestPrefix.SHARED_URI)
                .keyPrefix(prefix).highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.mark"))))) {
            AcquireReleaseRate.print("redis", issuer, seconds, 1, 16);
        } finally {
            RedisTestPrefix.deleteKeys(RedisTestPrefix.SHARED_URI, prefix);
        }
    }
}
