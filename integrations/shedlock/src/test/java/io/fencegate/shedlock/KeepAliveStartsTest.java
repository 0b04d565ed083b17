package io.fencegate.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseWatchdog;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The queue of keep-alives not yet due: nothing starts before a third of the ttl, a held lease's
 * keep-alive starts then and renews, a stopped one never starts, stopped entries do not pile up,
 * closing stops the held ones.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KeepAliveStartsTest {
    private final AtomicInteger renews = new AtomicInteger();

    /** Renews answer the lease, as an issuer that still holds it does; nothing else is expected. */
    private final LeaseIssuer renewing = (LeaseIssuer) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {LeaseIssuer.class}, (proxy, method, args) -> {
                if (method.getName().equals("renew")) {
                    renews.incrementAndGet();
                    return CompletableFuture.completedFuture(Optional.of(lease(0)));
                }
                throw new AssertionError("unexpected call " + method.getName());
            });

    @Test
    void aKeepAliveStartsAtAThirdOfTheTtlAndAStoppedOneNever() {
        try (LeaseWatchdog watchdog = new LeaseWatchdog(renewing); KeepAliveStarts starts = new KeepAliveStarts(watchdog)) {
            KeepAliveStarts.Held longJob = starts.hold(lease(1), Duration.ofMillis(600), lost -> { });
            KeepAliveStarts.Held shortJob = starts.hold(lease(2), Duration.ofMillis(2400), lost -> { }); // due at 800 ms
            KeepAliveStarts.Held notDueYet = starts.hold(lease(3), Duration.ofHours(1), lost -> { });
            shortJob.stop();
            // The long job's renews, every 200 ms: six of them take it past the short job's due time.
            await().atMost(Duration.ofSeconds(20)).until(() -> renews.get() >= 6);
            assertThat(longJob.started()).isTrue();
            assertThat(longJob.isStopped()).isFalse();
            assertThat(shortJob.started()).isFalse();
            assertThat(notDueYet.started()).isFalse();
        }
    }

    @Test
    void stoppedEntriesArePurgedSoTheQueueStaysWithinTwiceTheLiveOnes() {
        try (LeaseWatchdog watchdog = new LeaseWatchdog(renewing); KeepAliveStarts starts = new KeepAliveStarts(watchdog)) {
            List<KeepAliveStarts.Held> live = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                KeepAliveStarts.Held held = starts.hold(lease(i), Duration.ofHours(1), lost -> { });
                if (i % 100 == 0) {
                    live.add(held);
                } else {
                    held.stop();
                }
            }
            assertThat(starts.queued()).isLessThanOrEqualTo(2 * live.size() + 64);
            assertThat(live).noneMatch(KeepAliveStarts.Held::isStopped);
            starts.close();
            assertThat(live).allMatch(KeepAliveStarts.Held::isStopped);
            assertThat(renews).hasValue(0);
        }
    }

    private static Lease lease(int i) {
        return new Lease("job/" + i, "id-" + i, i + 1, System.currentTimeMillis() + 3_600_000, System.nanoTime());
    }
}
