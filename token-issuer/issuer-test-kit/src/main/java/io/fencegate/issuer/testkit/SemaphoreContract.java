package io.fencegate.issuer.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.Semaphores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract of fenced semaphores ({@link LeaseIssuer#acquirePermit}): at most N permits live,
 * each on a slot whose lock fences like any lock (a slot's next holder has a higher token), the
 * (N+1)-th acquire waits and then gets nothing, a different N is refused, an expired permit frees
 * its slot, renew and release by id, and under concurrency never N+1 permits or two holders of a
 * slot. Extends {@link ReadWriteContract}, so one backend test class runs both; only issuers that
 * keep both extend it: it does not skip.
 */
public abstract class SemaphoreContract extends ReadWriteContract {

    protected final Lease permit(LeaseIssuer issuer, String semaphore, int permits, Duration ttl) throws Exception {
        Lease lease = await(issuer.acquirePermit(semaphore, permits, ttl, Duration.ZERO))
                .orElseThrow(() -> new AssertionError("no permit of " + semaphore));
        assertThat(lease.isPermit()).isTrue();
        assertThat(lease.slot()).isBetween(0, permits - 1);
        assertThat(lease.lock()).isEqualTo(Semaphores.slotLock(semaphore, lease.slot()));
        assertThat(lease.mode()).isEqualTo(LeaseMode.WRITE);
        return lease;
    }

    @Test
    void atMostNPermitsLiveOnDistinctSlotsAndTheNextAcquireWaitsThenGetsNothing() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String sem = lock("sem-n");
        List<Lease> held = new ArrayList<>(List.of(permit(a, sem, 3, LONG_TTL), permit(b, sem, 3, LONG_TTL), permit(a, sem, 3, LONG_TTL)));
        assertThat(held).extracting(Lease::slot).containsExactlyInAnyOrder(0, 1, 2);
        long start = System.nanoTime();
        assertThat(await(b.acquirePermit(sem, 3, LONG_TTL, Duration.ofMillis(500)))).as("a fourth permit").isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        for (Lease lease : held) {
            assertThat(await(b.grantedMode(lease.lock(), lease.token()))).contains(LeaseMode.WRITE);
            assertThat(await(b.acquire(lease.lock(), LONG_TTL, Duration.ZERO))).as("the slot's lock is held").isEmpty();
        }
        assertThat(await(b.list(sem + "/", null, 10)).leases()).hasSize(3);

        Lease freed = held.get(1);
        CompletableFuture<Optional<Lease>> waiter = b.acquirePermit(sem, 3, LONG_TTL, Duration.ofSeconds(60)).toCompletableFuture();
        Thread.sleep(300);
        assertThat(waiter).as("no permit free").isNotDone();
        assertThat(await(a.release(freed.leaseId()))).isTrue();
        Lease next = await(waiter).orElseThrow();
        assertThat(next.slot()).isEqualTo(freed.slot());
        assertThat(next.token()).as("the slot's next holder fences out its last").isGreaterThan(freed.token());
        assertThat(await(a.wasGranted(freed.lock(), next.token()))).isTrue();
    }

    @Test
    void aDifferentPermitCountIsRefusedAndBadCountsAndNamesToo() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String sem = lock("sem-count");
        Lease first = permit(a, sem, 2, LONG_TTL);
        for (int other : new int[] {1, 3}) {
            assertThat(failureOf(() -> b.acquirePermit(sem, other, LONG_TTL, Duration.ZERO)))
                    .as("permits %d", other).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 permits");
        }
        for (int bad : new int[] {0, -1, Semaphores.MAX_PERMITS + 1}) {
            assertThat(failureOf(() -> b.acquirePermit(lock("sem-bad"), bad, LONG_TTL, Duration.ZERO)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits");
        }
        assertThat(failureOf(() -> b.acquirePermit("", 2, LONG_TTL, Duration.ZERO))).isInstanceOf(IllegalArgumentException.class);
        assertThat(failureOf(() -> b.acquirePermit(sem, 2, Duration.ZERO, Duration.ZERO))).isInstanceOf(IllegalArgumentException.class);
        assertThat(permit(b, sem, 2, LONG_TTL).slot()).as("the refusals took nothing").isNotEqualTo(first.slot());
        assertThat(await(b.acquirePermit(sem, 2, LONG_TTL, Duration.ZERO))).isEmpty();
    }

    @Test
    void aPermitThatExpiresWhileItsHolderIsPausedFreesItsSlotForAHigherToken() throws Exception {
        LeaseIssuer paused = issuer();
        List<LeaseEnd> ended = endsHeardBy(paused);
        LeaseIssuer other = issuer();
        String sem = lock("sem-expire");
        Lease stale = permit(paused, sem, 1, Duration.ofMillis(1500));
        Lease next = await(other.acquirePermit(sem, 1, LONG_TTL, Duration.ofSeconds(30)))
                .orElseThrow(() -> new AssertionError("the expired permit kept its slot"));
        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(stale.expiresAt() - 100);
        assertThat(next.slot()).isEqualTo(stale.slot());
        assertThat(next.token()).isGreaterThan(stale.token());
        assertThat(await(paused.renew(stale.leaseId()))).isEmpty();
        assertThat(await(paused.release(stale.leaseId()))).isFalse();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> ended.contains(LeaseEnd.EXPIRED));
    }

    @Test
    void aPermitWithALockDelayThatExpiresKeepsItsSlotForTheDelayAndAReleaseDoesNot() throws Exception {
        LeaseIssuer paused = issuer();
        LeaseIssuer other = issuer();
        String sem = lock("sem-delay");
        Duration delay = Duration.ofSeconds(2);
        Lease stale = await(paused.acquirePermit(sem, 1, Duration.ofMillis(1500), Duration.ZERO, delay))
                .orElseThrow(() -> new AssertionError("no permit of " + sem));
        // The holder is paused (never renews): its slot must stay taken for the delay after its expiry,
        // the time a holder that has not noticed its loss has to stop.
        Lease next = await(other.acquirePermit(sem, 1, LONG_TTL, Duration.ofSeconds(30), delay))
                .orElseThrow(() -> new AssertionError("the slot never freed after the permit's expiry and delay"));
        assertThat(System.currentTimeMillis()).as("granted before the expired permit's lock-delay ran out")
                .isGreaterThanOrEqualTo(stale.expiresAt() + delay.toMillis() - 100);
        assertThat(next.slot()).isEqualTo(stale.slot());
        assertThat(next.token()).isGreaterThan(stale.token());
        assertThat(await(paused.renew(stale.leaseId()))).isEmpty();

        // A release is a voluntary end: the slot is free at once, for a permit and for the slot's lock.
        assertThat(await(other.release(next.leaseId()))).isTrue();
        Lease after = await(paused.acquirePermit(sem, 1, LONG_TTL, Duration.ZERO, delay))
                .orElseThrow(() -> new AssertionError("a released permit's lock-delay held its slot"));
        assertThat(after.token()).isGreaterThan(next.token());
        assertThat(await(paused.release(after.leaseId()))).isTrue();
        assertThat(await(other.acquire(after.lock(), LONG_TTL, Duration.ZERO))).as("the slot's lock after a release").isPresent();
        assertThat(failureOf(() -> other.acquirePermit(sem, 1, LONG_TTL, Duration.ZERO, Duration.ofMillis(-1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockDelay");
    }

    @Test
    void anExpiredPermitsLockDelayHoldsOnlyItsSlot() throws Exception {
        LeaseIssuer a = issuer();
        String sem = lock("sem-delay-one");
        Duration delay = Duration.ofSeconds(20);
        Lease expiring = await(a.acquirePermit(sem, 2, Duration.ofMillis(500), Duration.ZERO, delay)).orElseThrow();
        Lease kept = permit(a, sem, 2, LONG_TTL);
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> await(a.find(expiring.leaseId())).isEmpty());
        assertThat(await(a.acquirePermit(sem, 2, LONG_TTL, Duration.ofMillis(300)))).as("the expired slot is in its delay").isEmpty();
        assertThat(await(a.release(kept.leaseId()))).isTrue();
        Lease free = await(a.acquirePermit(sem, 2, LONG_TTL, Duration.ofSeconds(10)))
                .orElseThrow(() -> new AssertionError("a slot's lock-delay held the other slot"));
        assertThat(free.slot()).isEqualTo(kept.slot());
    }

    @Test
    void aPermitIsRenewedFoundAndReleasedByIdFromAnyInstance() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String sem = lock("sem-renew");
        Lease lease = permit(a, sem, 2, Duration.ofSeconds(4));
        assertThat(a.lockOf(lease.leaseId())).contains(lease.lock());
        Thread.sleep(1_000);
        Lease renewed = await(b.renew(lease.leaseId())).orElseThrow(() -> new AssertionError("renew refused"));
        assertThat(renewed.token()).isEqualTo(lease.token());
        assertThat(renewed.expiresAt()).isGreaterThan(lease.expiresAt());
        assertThat(await(b.find(lease.leaseId()))).isPresent();
        assertThat(await(b.release(lease.leaseId()))).isTrue();
        assertThat(await(a.release(lease.leaseId()))).isFalse();
        assertThat(await(a.wasReleased(lease))).isTrue();
        permit(b, sem, 2, LONG_TTL);
        permit(a, sem, 2, LONG_TTL);
    }

    /** Threads in {@link #concurrentPermitsNeverExceedNOrShareASlot} (half through each instance). */
    protected int permitThreads() {
        return 4;
    }

    /** Acquisitions per thread in {@link #concurrentPermitsNeverExceedNOrShareASlot}. */
    protected int permitRounds() {
        return 15;
    }

    @Test
    @Timeout(600)
    void concurrentPermitsNeverExceedNOrShareASlot() throws Exception {
        LeaseIssuer a = issuer();
        LeaseIssuer b = issuer();
        String sem = lock("sem-stress");
        int permits = 2;
        AtomicInteger live = new AtomicInteger();
        Map<Integer, Long> lastToken = new ConcurrentHashMap<>();
        Map<Integer, Boolean> slotHeld = new ConcurrentHashMap<>();
        List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(permitThreads());
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < permitThreads(); t++) {
                LeaseIssuer issuer = t % 2 == 0 ? a : b;
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < permitRounds() && violations.isEmpty(); i++) {
                        Lease lease = await(issuer.acquirePermit(sem, permits, LONG_TTL, Duration.ofSeconds(60)))
                                .orElseThrow(() -> new AssertionError("no permit within 60 s"));
                        if (live.incrementAndGet() > permits) {
                            violations.add("more than " + permits + " permits live");
                        }
                        if (slotHeld.put(lease.slot(), Boolean.TRUE) != null) {
                            violations.add("two holders of slot " + lease.slot());
                        }
                        Long previous = lastToken.put(lease.slot(), lease.token());
                        if (previous != null && previous >= lease.token()) {
                            violations.add("slot " + lease.slot() + " token " + lease.token() + " after " + previous);
                        }
                        Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                        slotHeld.remove(lease.slot());
                        live.decrementAndGet();
                        if (!await(issuer.release(lease.leaseId()))) {
                            violations.add("release of a live permit answered false");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(590, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(violations).isEmpty();
        assertThat(lastToken.keySet()).allMatch(slot -> slot >= 0 && slot < permits);
    }
}
