package io.fencegate.issuer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class LeaseWatchdogTest {

    /** Renews per its mode; counts calls. */
    private static final class ScriptedIssuer implements LeaseIssuer {
        enum Mode { RENEW, GONE, UNAVAILABLE }

        final AtomicReference<Mode> mode = new AtomicReference<>(Mode.RENEW);
        final AtomicInteger renews = new AtomicInteger();
        final AtomicInteger releases = new AtomicInteger();
        final long ttlMs;

        ScriptedIssuer(long ttlMs) {
            this.ttlMs = ttlMs;
        }

        Lease grant() {
            return new Lease("l", "id", 7, System.currentTimeMillis() + ttlMs);
        }

        @Override
        public CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionStage<Optional<Lease>> renew(String leaseId) {
            renews.incrementAndGet();
            return switch (mode.get()) {
                case RENEW -> CompletableFuture.completedFuture(Optional.of(
                        new Lease("l", leaseId, 7, System.currentTimeMillis() + ttlMs)));
                case GONE -> CompletableFuture.completedFuture(Optional.empty());
                case UNAVAILABLE -> CompletableFuture.failedFuture(new IssuerUnavailableException("down"));
            };
        }

        @Override
        public CompletionStage<Boolean> release(String leaseId) {
            releases.incrementAndGet();
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletionStage<Boolean> wasGranted(String lock, long token) {
            return CompletableFuture.completedFuture(false);
        }

        @Override
        public CompletionStage<Optional<Lease>> find(String leaseId) {
            return CompletableFuture.completedFuture(Optional.empty());
        }

        @Override
        public CompletionStage<Boolean> wasReleased(Lease lease) {
            return CompletableFuture.completedFuture(false);
        }

        @Override
        public CompletionStage<LeasePage> list(String lockPrefix, String cursor, int limit) {
            return CompletableFuture.completedFuture(new LeasePage(List.of(), Optional.empty()));
        }

        @Override
        public void addListener(LeaseListener listener) { }

        @Override
        public void close() { }
    }

    @Test
    void renewsAboutEveryThirdOfTheTtlAndKeepsTheLatestExpiry() throws Exception {
        ScriptedIssuer issuer = new ScriptedIssuer(300);
        List<Lease> lost = new CopyOnWriteArrayList<>();
        try (LeaseWatchdog watchdog = new LeaseWatchdog(issuer)) {
            Lease lease = issuer.grant();
            LeaseWatchdog.KeepAlive keepAlive = watchdog.keepAlive(lease, Duration.ofMillis(300), lost::add);
            Thread.sleep(1_000);
            assertThat(issuer.renews.get()).isBetween(4, 12);
            assertThat(keepAlive.lease().expiresAt()).isGreaterThan(lease.expiresAt());
            assertThat(lost).isEmpty();
            assertThat(keepAlive.release().toCompletableFuture().get()).isTrue();
            int renewsAtRelease = issuer.renews.get();
            Thread.sleep(400);
            assertThat(issuer.renews.get()).isEqualTo(renewsAtRelease);
            assertThat(issuer.releases.get()).isEqualTo(1);
            assertThat(lost).isEmpty();
        }
    }

    @Test
    void holderIsToldOnceWhenTheLeaseIsGone() throws Exception {
        ScriptedIssuer issuer = new ScriptedIssuer(300);
        List<Lease> lost = new CopyOnWriteArrayList<>();
        try (LeaseWatchdog watchdog = new LeaseWatchdog(issuer)) {
            LeaseWatchdog.KeepAlive keepAlive = watchdog.keepAlive(issuer.grant(), Duration.ofMillis(300), lost::add);
            issuer.mode.set(ScriptedIssuer.Mode.GONE);
            await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
            Thread.sleep(400);
            assertThat(lost).hasSize(1);
            assertThat(lost.get(0).token()).isEqualTo(7);
            assertThat(keepAlive.isStopped()).isTrue();
        }
    }

    @Test
    void renewsFailingUntilExpiryTellTheHolderButBriefFailuresDoNot() throws Exception {
        ScriptedIssuer issuer = new ScriptedIssuer(600);
        List<Lease> lost = new CopyOnWriteArrayList<>();
        List<Long> toldAt = new CopyOnWriteArrayList<>();
        try (LeaseWatchdog watchdog = new LeaseWatchdog(issuer)) {
            Lease lease = issuer.grant();
            watchdog.keepAlive(lease, Duration.ofMillis(600), l -> {
                toldAt.add(System.currentTimeMillis());
                lost.add(l);
            });
            Thread.sleep(250);
            issuer.mode.set(ScriptedIssuer.Mode.UNAVAILABLE);
            Thread.sleep(250);
            issuer.mode.set(ScriptedIssuer.Mode.RENEW);
            Thread.sleep(500);
            assertThat(lost).as("a brief outage is ridden out").isEmpty();

            issuer.mode.set(ScriptedIssuer.Mode.UNAVAILABLE);
            long stoppedRenewingAt = System.currentTimeMillis();
            await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
            // told at the deadline (the last confirmed renew's send time + ttl), never after the
            // issuer's expiry of the lease; 25 ms for the timer thread on a busy machine
            assertThat(toldAt.get(0)).isLessThanOrEqualTo(lost.get(0).expiresAt() + 25);
            assertThat(lost.get(0).expiresAt()).isGreaterThan(stoppedRenewingAt - 10);
        }
    }

    /** A monotonic clock this test can move ahead: a pause, as the holder's process sees it afterwards. */
    private static final class PausableClock {
        final java.util.concurrent.atomic.AtomicLong pausedNanos = new java.util.concurrent.atomic.AtomicLong();

        long nanoTime() {
            return System.nanoTime() + pausedNanos.get();
        }

        void pause(Duration d) {
            pausedNanos.addAndGet(d.toNanos());
        }
    }

    private static Lease grantedAt(long startedAtNanos, Duration ttl) {
        // the wall-clock expiry says an hour: a stepped wall clock, or an issuer's clock far ahead
        return new Lease("l", "id", 7, System.currentTimeMillis() + 3_600_000, startedAtNanos);
    }

    @Test
    void aHolderPausedPastItsTtlNoLongerHoldsAndIsToldOnceWithoutARenewSent() throws Exception {
        PausableClock clock = new PausableClock();
        ScriptedIssuer issuer = new ScriptedIssuer(10_000);
        List<Lease> lost = new CopyOnWriteArrayList<>();
        try (LeaseWatchdog watchdog = new LeaseWatchdog(issuer, clock::nanoTime)) {
            LeaseWatchdog.KeepAlive keepAlive = watchdog.keepAlive(grantedAt(clock.nanoTime(), Duration.ofSeconds(10)),
                    Duration.ofSeconds(10), lost::add);
            assertThat(keepAlive.holds()).isTrue();
            clock.pause(Duration.ofSeconds(11));
            assertThat(keepAlive.holds()).as("past the ttl on the monotonic clock, whatever expiresAt says").isFalse();
            assertThat(lost).hasSize(1);
            assertThat(keepAlive.remaining()).isZero();
            assertThat(keepAlive.isStopped()).isTrue();
            Thread.sleep(100);
            assertThat(issuer.renews).as("no renew after the deadline").hasValue(0);
            assertThat(keepAlive.holds()).isFalse();
            assertThat(lost).hasSize(1);
        }
    }

    @Test
    void aRenewDueAfterAPauseIsNotSentAndTheHolderIsTold() throws Exception {
        PausableClock clock = new PausableClock();
        ScriptedIssuer issuer = new ScriptedIssuer(300);
        List<Lease> lost = new CopyOnWriteArrayList<>();
        try (LeaseWatchdog watchdog = new LeaseWatchdog(issuer, clock::nanoTime)) {
            watchdog.keepAlive(grantedAt(clock.nanoTime(), Duration.ofMillis(300)), Duration.ofMillis(300), lost::add);
            clock.pause(Duration.ofSeconds(1)); // before the first renew is due
            await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
            assertThat(issuer.renews).hasValue(0);
        }
    }

    @Test
    void theFirstDeadlineCountsFromTheAcquiresStartNotFromKeepAlive() {
        PausableClock clock = new PausableClock();
        ScriptedIssuer issuer = new ScriptedIssuer(10_000);
        // Past a third of its ttl the watchdog renews at once; a confirmed renew would move the deadline
        // and race this test, so renews fail here and only the acquire's start counts.
        issuer.mode.set(ScriptedIssuer.Mode.UNAVAILABLE);
        try (LeaseWatchdog watchdog = new LeaseWatchdog(issuer, clock::nanoTime)) {
            long startedAt = clock.nanoTime() - Duration.ofSeconds(8).toNanos(); // granted 8 s ago
            LeaseWatchdog.KeepAlive keepAlive = watchdog.keepAlive(grantedAt(startedAt, Duration.ofSeconds(10)),
                    Duration.ofSeconds(10), lease -> { });
            assertThat(keepAlive.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(2));
            clock.pause(Duration.ofMillis(2_001));
            assertThat(keepAlive.holds()).isFalse();
        }
    }

    @Test
    void aConfirmedRenewMovesTheDeadlineToItsSendTimePlusTheTtl() throws Exception {
        PausableClock clock = new PausableClock();
        ScriptedIssuer issuer = new ScriptedIssuer(600);
        try (LeaseWatchdog watchdog = new LeaseWatchdog(issuer, clock::nanoTime)) {
            long startedAt = clock.nanoTime();
            LeaseWatchdog.KeepAlive keepAlive = watchdog.keepAlive(grantedAt(startedAt, Duration.ofMillis(600)),
                    Duration.ofMillis(600), lease -> { });
            await().atMost(Duration.ofSeconds(5)).until(() -> issuer.renews.get() >= 1);
            await().atMost(Duration.ofSeconds(5)).until(() ->
                    keepAlive.remaining().toNanos() + clock.nanoTime() > startedAt + Duration.ofMillis(600).toNanos());
            long before = clock.nanoTime();
            Duration left = keepAlive.remaining();
            assertThat(before + left.toNanos()).as("never past the last renew's send time + ttl")
                    .isLessThanOrEqualTo(clock.nanoTime() + Duration.ofMillis(600).toNanos());
            assertThat(keepAlive.holds()).isTrue();
        }
    }

    @Test
    void aLeaseWhoseStartIsUnknownGetsAtMostOneTtlFromNow() {
        ScriptedIssuer issuer = new ScriptedIssuer(10_000);
        issuer.mode.set(ScriptedIssuer.Mode.UNAVAILABLE); // no confirmed renew moves the deadline meanwhile
        try (LeaseWatchdog watchdog = new LeaseWatchdog(issuer)) {
            LeaseWatchdog.KeepAlive keepAlive = watchdog.keepAlive(
                    new Lease("l", "id", 7, System.currentTimeMillis() + 3_600_000), Duration.ofSeconds(10), lease -> { });
            assertThat(keepAlive.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(10));
            LeaseWatchdog.KeepAlive nearlyOver = watchdog.keepAlive(
                    new Lease("l", "id2", 8, System.currentTimeMillis() + 1_000), Duration.ofSeconds(10), lease -> { });
            assertThat(nearlyOver.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(1));
        }
    }
}
