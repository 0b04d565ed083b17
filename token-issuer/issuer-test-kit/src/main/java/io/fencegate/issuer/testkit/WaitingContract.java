package io.fencegate.issuer.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The issuer contract, waiting: a held lock answers a zero wait at once, a waiter gets it at the
 * release, a wait that runs out leaves no trace, and a lock-delay holds a lock past an expiry.
 */
public abstract class WaitingContract extends GrantContract {
    // ---------------------------------------------------------------- waiting

    /** A lock whose lease {@code held} issuer {@code a} granted, and a second issuer {@code b} on the same backend. */
    private record HeldLock(LeaseIssuer a, LeaseIssuer b, String lock, Lease held) { }

    private HeldLock heldLock(String name) throws Exception {
        LeaseIssuer a = issuer();
        String lock = lock(name);
        return new HeldLock(a, issuer(), lock, acquired(a, lock, LONG_TTL));
    }

    @Test
    void zeroWaitOnHeldLockAnswersEmptyPromptly() throws Exception {
        HeldLock h = heldLock("held");
        long start = System.nanoTime();
        assertThat(await(h.b().acquire(h.lock(), LONG_TTL, Duration.ZERO))).isEmpty();
        assertThat(await(h.a().acquire(h.lock(), LONG_TTL, Duration.ZERO))).as("not reentrant").isEmpty();
        // Generous bound: "promptly" means it did not wait for the ttl or a default wait.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(await(h.a().renew(h.held().leaseId()))).as("refused acquire left the holder alone").isPresent();
    }

    @Test
    void waiterGetsTheLockWhenTheHolderReleases() throws Exception {
        HeldLock h = heldLock("wait");
        CompletableFuture<Optional<Lease>> waiter =
                h.b().acquire(h.lock(), LONG_TTL, Duration.ofSeconds(30)).toCompletableFuture();
        Thread.sleep(300);
        assertThat(waiter).as("still waiting while held").isNotDone();
        assertThat(await(h.a().release(h.held().leaseId()))).isTrue();
        Lease next = await(waiter).orElseThrow();
        assertThat(next.token()).isGreaterThan(h.held().token());
        assertThat(await(h.b().release(next.leaseId()))).isTrue();
    }

    @Test
    void waitRunningOutAnswersEmptyAndLeavesNoTraceInTheQueue() throws Exception {
        HeldLock h = heldLock("timeout");
        long start = System.nanoTime();
        assertThat(await(h.b().acquire(h.lock(), LONG_TTL, Duration.ofMillis(500)))).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        assertThat(await(h.a().release(h.held().leaseId()))).isTrue();
        // The timed-out waiter must not hold a place in line: the lock is free at once.
        Lease next = acquired(h.a(), h.lock(), LONG_TTL);
        assertThat(next.token()).isGreaterThan(h.held().token());
    }

    // ---------------------------------------------------------------- lock-delay

    @Test
    void afterAnExpiryTheLockDelayKeepsTheLockFromEveryInstanceUntilItPassed() throws Exception {
        LeaseIssuer granting = issuer();
        LeaseIssuer other = issuer();
        String lock = lock("delay-expired");
        Duration delay = Duration.ofMillis(1500);
        // A ttl that a busy machine's renew still reaches in time (at 400 ms, one renew came too late).
        Lease first = await(granting.acquire(lock, Duration.ofSeconds(2), Duration.ZERO, delay)).orElseThrow();
        // Renewed once, so the delay counts from the renewed expiry, not the first.
        Lease renewed = await(granting.renew(first.leaseId())).orElseThrow();
        while (System.currentTimeMillis() < renewed.expiresAt() + 200) {
            Thread.sleep(50);
        }
        assertThat(await(other.acquire(lock, LONG_TTL, Duration.ZERO))).as("expired, but within the delay").isEmpty();
        Lease next = await(other.acquire(lock, LONG_TTL, Duration.ofSeconds(10))).orElseThrow();
        long grantedAt = System.currentTimeMillis();
        assertThat(grantedAt).as("granted no earlier than expiry + delay")
                .isGreaterThanOrEqualTo(renewed.expiresAt() + delay.toMillis() - 50);
        // Liveness, not safety: on ZooKeeper the granting instance deletes the expired node on its own
        // timer, late when its machine is busy (one full run on a loaded 2-core box: 4.6 s after).
        assertThat(grantedAt).as("and not much later").isLessThan(renewed.expiresAt() + delay.toMillis() + 6000);
        assertThat(next.token()).isGreaterThan(first.token());
        assertThat(await(other.release(next.leaseId()))).isTrue();
        assertThat(await(granting.acquire(lock, LONG_TTL, Duration.ZERO))).as("a release leaves no delay").isPresent();
    }

    @Test
    void aReleaseFreesALockWithALockDelayAtOnce() throws Exception {
        LeaseIssuer granting = issuer();
        LeaseIssuer other = issuer();
        String lock = lock("delay-released");
        Lease first = await(granting.acquire(lock, Duration.ofSeconds(5), Duration.ZERO, Duration.ofSeconds(30)))
                .orElseThrow();
        assertThat(await(granting.renew(first.leaseId()))).isPresent();
        assertThat(await(granting.release(first.leaseId()))).isTrue();
        Optional<Lease> next = await(other.acquire(lock, LONG_TTL, Duration.ZERO));
        assertThat(next).as("granted at once after a release, through another instance").isPresent();
        assertThat(await(other.release(next.get().leaseId()))).isTrue();
    }

    @Test
    void aNegativeLockDelayIsRefused() throws Exception {
        LeaseIssuer issuer = issuer();
        assertThat(failureOf(() -> issuer.acquire(lock("delay-bad"), LONG_TTL, Duration.ZERO, Duration.ofMillis(-1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockDelay");
    }
}
