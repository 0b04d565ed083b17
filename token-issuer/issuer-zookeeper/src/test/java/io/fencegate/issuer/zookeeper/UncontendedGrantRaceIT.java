package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The one-round-trip grant's race: two issuer instances, each with its own ZooKeeper session,
 * take one lock as fast as they can, with varying gaps, so their transactions keep meeting. Each instance's cached
 * knowledge of the lock goes stale at every turn of the other. Never two live holders; tokens
 * strictly increase in grant order; the other instance knows every token as granted while it is
 * held and after.
 */
@Timeout(120)
class UncontendedGrantRaceIT {

    private static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(6);
    /** Enough grants for a race to show: a loaded machine may need longer than RUN_NANOS for them. */
    private static final int MIN_GRANTS = 21;
    private static final long MAX_RUN_NANOS = TimeUnit.SECONDS.toNanos(60);
    @RegisterExtension
    static final InProcessZooKeeper ZK = new InProcessZooKeeper();

    @ParameterizedTest
    @EnumSource(TokenMode.class)
    void twoInstancesOnOneLockNeverHoldItTogetherAndTokensIncrease(TokenMode mode) throws Exception {
        String root = "/fencegate-race-" + UUID.randomUUID().toString().substring(0, 8);
        String lock = "race/" + mode;
        ExclusionCheck check = new ExclusionCheck();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (LeaseIssuer a = issuer(root, mode); LeaseIssuer b = issuer(root, mode)) {
            long start = System.nanoTime();
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                LeaseIssuer mine = t % 2 == 0 ? a : b;
                LeaseIssuer other = t % 2 == 0 ? b : a;
                workers.add(pool.submit(() -> {
                    while (goOn(start, check) && check.violations().isEmpty()) {
                        Lease lease = mine.acquire(lock, Duration.ofSeconds(30), Duration.ofSeconds(20))
                                .toCompletableFuture().get(30, TimeUnit.SECONDS).orElseThrow();
                        check.holds(lease);
                        if (!other.wasGranted(lock, lease.token()).toCompletableFuture().get(10, TimeUnit.SECONDS)) {
                            check.violation("held token " + lease.token() + " unknown to the other instance");
                        }
                        check.letGo();
                        if (!mine.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS)) {
                            check.violation("release of live lease " + lease.token() + " answered false");
                        }
                        // A varying gap, so both instances often find the lock free and try it at once.
                        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(300_000));
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(120, TimeUnit.SECONDS);
            }
            assertThat(check.violations()).isEmpty();
            List<Long> tokens = check.tokens();
            System.out.printf("%s race: %d grants%n", mode, tokens.size());
            assertThat(tokens).hasSizeGreaterThanOrEqualTo(MIN_GRANTS).doesNotHaveDuplicates().isSorted();
            // The grant log keeps the newest KEEP_PER_LOCK per lock.
            for (long token : tokens.subList(Math.max(0, tokens.size() - GrantLog.KEEP_PER_LOCK + 100), tokens.size())) {
                assertThat(b.wasGranted(lock, token).toCompletableFuture().get(10, TimeUnit.SECONDS))
                        .as("token %d after its release", token).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static boolean goOn(long start, ExclusionCheck check) {
        long ran = System.nanoTime() - start;
        return ran < RUN_NANOS || (check.tokens().size() < MIN_GRANTS && ran < MAX_RUN_NANOS);
    }

    private static LeaseIssuer issuer(String root, TokenMode mode) {
        return ZooKeeperLeaseIssuer.builder().connectString(ZK.connectString()).root(root).tokenMode(mode)
                .forgetIdleLocksAfter(Duration.ZERO).build();
    }
}
