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
        try (LeaseWatchdog watchdog = new LeaseWatchdog(issuer)) {
            Lease lease = issuer.grant();
            watchdog.keepAlive(lease, Duration.ofMillis(600), lost::add);
            Thread.sleep(250);
            issuer.mode.set(ScriptedIssuer.Mode.UNAVAILABLE);
            Thread.sleep(250);
            issuer.mode.set(ScriptedIssuer.Mode.RENEW);
            Thread.sleep(500);
            assertThat(lost).as("a brief outage is ridden out").isEmpty();

            issuer.mode.set(ScriptedIssuer.Mode.UNAVAILABLE);
            long stoppedRenewingAt = System.currentTimeMillis();
            await().atMost(Duration.ofSeconds(5)).until(() -> !lost.isEmpty());
            assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(lost.get(0).expiresAt());
            assertThat(lost.get(0).expiresAt()).isGreaterThan(stoppedRenewingAt - 10);
        }
    }
}
