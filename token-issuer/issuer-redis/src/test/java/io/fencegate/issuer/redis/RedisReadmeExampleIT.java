package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The usage snippet given for the README, run as written (plus a random prefix and clean-up). */
@Timeout(30)
class RedisReadmeExampleIT {

    @TempDir
    Path dir;

    @Test
    void readmeSnippetRuns() throws Exception {
        String prefix = RedisTestPrefix.random();
        Path markFile = dir.resolve("fencegate/redis-tokens.mark");
        try {
            // --- snippet ---
            LeaseIssuer issuer = new RedisLeaseIssuer(new RedisIssuerOptions()
                    .uri("redis://127.0.0.1:6379")                         // the single master
                    .keyPrefix(prefix)                                     // e.g. "myapp:fencegate:"
                    .highWaterMark(new FileTokenHighWaterMark(markFile))); // durable, outside Redis
            issuer.addListener((lease, reason) -> System.out.println("lost " + lease.lock() + ": " + reason));

            Optional<Lease> lease = issuer.acquire("inventory/sku-42", Duration.ofSeconds(30), Duration.ofSeconds(5))
                    .toCompletableFuture().join();
            if (lease.isPresent()) {
                long token = lease.get().token();   // send with every write: Fencing-Token: <token>
                // ... guarded writes with `token` ...
                issuer.renew(lease.get().leaseId()).toCompletableFuture().join();
                issuer.release(lease.get().leaseId()).toCompletableFuture().join();
            }
            issuer.close();
            // --- end of snippet ---
            assertThat(lease).isPresent();
        } finally {
            RedisTestPrefix.deleteKeys(RedisTestPrefix.SHARED_URI, prefix);
        }
    }
}
