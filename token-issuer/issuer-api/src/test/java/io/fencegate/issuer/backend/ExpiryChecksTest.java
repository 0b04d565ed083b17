package io.fencegate.issuer.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.Lease;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One timer per watched lease: checked at its expiry, again while the backend says it lives, told once when it ended. */
@Timeout(30)
class ExpiryChecksTest {

    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final Queue<String> ended = new ConcurrentLinkedQueue<>();
    private final AtomicInteger checks = new AtomicInteger();

    ExpiryChecksTest() {
        scheduler.setRemoveOnCancelPolicy(true); // as the issuers set it: a cancelled timer leaves the queue
    }

    /** The backend: lives for {@code livesFor} checks, then has ended. */
    private ExpiryChecks watch(int livesFor) {
        return new ExpiryChecks(scheduler) {
            @Override
            protected void check(Tracked tracked) {
                if (checks.incrementAndGet() <= livesFor) {
                    checkAgainIn(tracked, 5);
                } else if (stopWatching(tracked)) {
                    ended.add(tracked.lease.lock());
                }
            }
        };
    }

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void aLeaseIsCheckedAgainWhileItLivesAndItsEndIsToldOnce() {
        ExpiryChecks watch = watch(3);
        watch.track(lease("a"), "s1", 10);
        await().atMost(Duration.ofSeconds(10)).until(() -> !ended.isEmpty());
        assertThat(checks).hasValue(4);
        assertThat(ended).containsExactly("a");
        assertThat(watch.drain()).as("no longer watched").isEmpty();
    }

    @Test
    void aForgottenOrDrainedLeaseLeavesNoTimerAndDrainAnswersWhatWasWatched() {
        ExpiryChecks watch = watch(0);
        watch.track(lease("a"), "s1", 60_000);
        watch.track(lease("b"), "s2", 60_000);
        watch.forget("s1");
        assertThat(scheduler.getQueue()).as("timers after a forget").hasSize(1);
        List<ExpiryChecks.Tracked> left = watch.drain();
        assertThat(left).extracting(t -> t.secret).containsExactly("s2");
        assertThat(scheduler.getQueue()).as("timers after the drain").isEmpty();
        assertThat(watch.drain()).isEmpty();
    }

    private static Lease lease(String lock) {
        return new Lease(lock, "id-" + lock, 1, System.currentTimeMillis() + 10);
    }
}
