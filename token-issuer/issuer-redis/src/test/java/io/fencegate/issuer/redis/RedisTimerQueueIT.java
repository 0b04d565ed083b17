package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every lease schedules an expiry timer, and a release cancels it. A scheduler that keeps
 * cancelled timers until their delay passes holds one per lease of the last ttl: memory grows
 * with the lease rate. Shared 127.0.0.1:6379, random prefix.
 */
@Timeout(120)
class RedisTimerQueueIT {

    private static final int ACQUIRERS = 16;
    private static final int CYCLES = 50_000;
    private static final long MAX_SECONDS = 60;

    @TempDir
    Path dir;

    private String prefix;
    private RedisLeaseIssuer issuer;

    @BeforeEach
    void setUp() {
        prefix = RedisTestPrefix.random();
        issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(RedisTestPrefix.SHARED_URI).keyPrefix(prefix)
                .highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.mark"))));
    }

    @AfterEach
    void tearDown() {
        issuer.close();
        RedisTestPrefix.deleteKeys(RedisTestPrefix.SHARED_URI, prefix);
    }

    @Test
    void releasedLeasesLeaveNoTimersBehind() throws Exception {
        AtomicInteger done = new AtomicInteger();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(MAX_SECONDS);
        ExecutorService pool = Executors.newFixedThreadPool(ACQUIRERS);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < ACQUIRERS; t++) {
            String lock = "timers-" + t;
            workers.add(pool.submit(() -> {
                while (done.get() < CYCLES && System.nanoTime() < deadline) {
                    // a long ttl: a cancelled timer would sit in the queue for a minute
                    Lease lease = issuer.acquire(lock, Duration.ofMinutes(1), Duration.ofSeconds(5))
                            .toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
                    issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
                    done.incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(MAX_SECONDS + 30, TimeUnit.SECONDS);
        }
        pool.shutdown();

        assertThat(done.get()).as("cycles done within %d s", MAX_SECONDS).isGreaterThanOrEqualTo(CYCLES / 4);
        // nothing is held now: only the few timers still being cancelled may remain
        assertThat(issuer.scheduledTimers()).as("timers queued after %d released leases", done.get())
                .isLessThanOrEqualTo(ACQUIRERS);
    }
}
