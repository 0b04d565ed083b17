package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.testing.RedisServer;
import io.fencegate.testing.SteppedWallClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Redis keeps a key's expiry as a time on its host's wall clock: a step of that clock ahead ends
 * every lease early by the step, in the eyes of Redis, while each holder still holds it by its own
 * monotonic clock. The issuer must never grant such a lock to another caller before the holder's
 * deadline: not while the lock key is still there (its expiry must move with the step), nor once it
 * has gone (the lock stays refused as long as its holder may still hold it). A step back only makes
 * leases last longer, but the step ahead that puts the clock right again must be caught as well.
 *
 * <p>The server runs under a stepped wall clock ({@link SteppedWallClock#shimEnvironment()}); its
 * monotonic clock, and the test's, run on. Two issuers, as two gateways: A grants, B tries.
 */
@Timeout(120)
class RedisClockStepIT extends OwnRedisServers {

    private static final Duration SHORT = Duration.ofSeconds(3);
    private static final Duration LONG = Duration.ofSeconds(8);
    private static final long STEP_SECONDS = 5;

    /** A lease A holds, its ttl, and the semaphore it is a permit of (null: a lease on its lock). */
    private record Held(Lease lease, Duration ttl, String semaphore) {
        /** Its holder's deadline: the ttl from the moment its acquire was sent (what a holder counts from). */
        long deadlineNanos() {
            return lease.startedAtNanos() + ttl.toNanos();
        }
    }

    private SteppedWallClock clock;
    private RedisLeaseIssuer a;
    private RedisLeaseIssuer b;

    @BeforeEach
    void startSteppedServer() throws Exception {
        clock = SteppedWallClock.create(dir.resolve("clock"), SteppedWallClock.PickUp.AT_ONCE);
        RedisServer server = RedisServer.start(dir.resolve("redis"), clock.shimEnvironment());
        registerServer(server);
        a = newIssuer(server);
        b = newIssuer(server);
    }

    @Test
    void aStepAheadHandsOnNoLeaseBeforeItsHolderLetsGo() throws Exception {
        List<Held> held = List.of(
                lease("short", LeaseMode.WRITE, SHORT),     // its key is gone at once after the step
                lease("long", LeaseMode.WRITE, LONG),       // its key outlives the step, shortened
                lease("read-short", LeaseMode.READ, SHORT), // a read lease: a writer must wait for it
                lease("read-long", LeaseMode.READ, LONG),
                permit("slots", LONG));

        step(() -> clock.offset(STEP_SECONDS));

        assertThat(tryWrite(b, held.get(0))).isEmpty(); // B's grant sees the step first, and repairs it
        // Both report the locks held off: a gateway's /health and its fail-closed metric read this.
        assertThat(b.failingClosed()).hasValueSatisfying(why -> assertThat(why).contains("clock stepped ahead"));
        Thread.sleep(1_500); // A's next reading of the clock (every second) reads the repair's record
        assertThat(a.failingClosed()).hasValueSatisfying(why -> assertThat(why).contains("clock stepped ahead"));
        awaitNoGrantWhileHeld(held);
        awaitEveryLockGrantedAgain(held);
        assertThat(b.failingClosed()).isEmpty();
    }

    /**
     * A step too small to tell from a slow round trip (under the issuer's 250 ms tolerance) is not
     * repaired: the lock key's margin past the lease (see expiry-margin.lua) keeps it from ending the
     * lease before its holder's deadline.
     */
    @Test
    void aStepTooSmallToSeeEndsNoLeaseEarly() throws Exception {
        List<Held> held = List.of(lease("short", LeaseMode.WRITE, SHORT), lease("read-short", LeaseMode.READ, SHORT),
                permit("slots", SHORT));

        step(() -> clock.offsetMillis(200));

        awaitNoGrantWhileHeld(held);
        assertThat(b.failingClosed()).as("nothing to repair").isEmpty();
        awaitEveryLockGrantedAgain(held);
    }

    @Test
    void theStepAheadThatUndoesAStepBackIsCaughtToo() throws Exception {
        step(() -> clock.offset(-STEP_SECONDS));
        Thread.sleep(1_500); // the issuers take a reading on the clock stepped back: their course now
        List<Held> held = List.of(lease("short", LeaseMode.WRITE, SHORT), lease("long", LeaseMode.WRITE, LONG));

        step(() -> clock.offset(0));

        awaitNoGrantWhileHeld(held);
        awaitEveryLockGrantedAgain(held);
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void step(Step step) throws Exception {
        step.run();
        Thread.sleep(50); // the server reads its clock's file every 5 ms
    }

    /** Until the last holder's deadline, B tries each lock still held, as a writer; none may be granted. */
    private void awaitNoGrantWhileHeld(List<Held> held) throws Exception {
        long lastDeadline = held.stream().mapToLong(Held::deadlineNanos).max().orElseThrow();
        while (System.nanoTime() < lastDeadline) {
            for (Held h : held) {
                if (System.nanoTime() < h.deadlineNanos()) {
                    Optional<Lease> granted = tryWrite(b, h);
                    assertThat(granted).as("%s granted to another caller %d ms before its holder's deadline",
                                    h.lease.lock(), TimeUnit.NANOSECONDS.toMillis(h.deadlineNanos() - System.nanoTime()))
                            .isEmpty();
                }
            }
            Thread.sleep(100);
        }
    }

    /** It recovers on its own: every lock is granted again soon after its holder's deadline and the step's length. */
    private void awaitEveryLockGrantedAgain(List<Held> held) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_SECONDS + 10);
        for (Held h : held) {
            Optional<Lease> again = Optional.empty();
            while (again.isEmpty() && System.nanoTime() < until) {
                again = tryWrite(b, h);
                if (again.isEmpty()) {
                    Thread.sleep(100);
                }
            }
            assertThat(again).as("%s granted again", h.lease.lock()).isPresent();
            assertThat(again.get().token()).isGreaterThan(h.lease.token());
        }
    }

    private static Optional<Lease> tryWrite(RedisLeaseIssuer issuer, Held h) throws Exception {
        var attempt = h.semaphore != null
                ? issuer.acquirePermit(h.semaphore, 1, SHORT, Duration.ZERO)
                : issuer.acquire(h.lease.lock(), SHORT, Duration.ZERO);
        return attempt.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private Held lease(String lock, LeaseMode mode, Duration ttl) throws Exception {
        Lease lease = a.acquire(lock, mode, ttl, Duration.ZERO, Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS)
                .orElseThrow();
        return new Held(lease, ttl, null);
    }

    private Held permit(String semaphore, Duration ttl) throws Exception {
        Lease lease = a.acquirePermit(semaphore, 1, ttl, Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS)
                .orElseThrow();
        return new Held(lease, ttl, semaphore);
    }
}
