package io.fencegate.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseWatchdog;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The queue of keep-alives not yet due: stopped entries do not pile up, closing stops the held ones. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KeepAliveStartsTest {

    /** No keep-alive here ever falls due (ttl 1 h), so the issuer is never called. */
    private final LeaseIssuer neverCalled = (LeaseIssuer) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {LeaseIssuer.class}, (proxy, method, args) -> {
                throw new AssertionError("unexpected call " + method.getName());
            });

    @Test
    void stoppedEntriesArePurgedSoTheQueueStaysWithinTwiceTheLiveOnes() {
        try (LeaseWatchdog watchdog = new LeaseWatchdog(neverCalled); KeepAliveStarts starts = new KeepAliveStarts(watchdog)) {
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
        }
    }

    private static Lease lease(int i) {
        return new Lease("job/" + i, "id-" + i, i + 1, System.currentTimeMillis() + 3_600_000, System.nanoTime());
    }
}
