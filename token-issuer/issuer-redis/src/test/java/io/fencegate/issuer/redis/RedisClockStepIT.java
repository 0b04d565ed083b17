package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.testing.RedisServer;
import io.fencegate.testing.SteppedWallClock;
import java.time.Duration;
import java.util.ArrayList;
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

    private SteppedWallClock clock;
    private RedisServer server;
    private RedisLeaseIssuer a;
    private RedisLeaseIssuer b;

    @BeforeEach
    void startSteppedServer() throws Exception {
        clock = SteppedWallClock.create(dir.resolve("clock"), SteppedWallClock.PickUp.AT_ONCE);
        server = RedisServer.start(dir.resolve("redis"), clock.shimEnvironment());
        registerServer(server);
        a = newIssuer(server);
        b = newIssuer(server);
    }

    @Test
    void aStepAheadHandsOnNoLeaseBeforeItsHolderLetsGo() throws Exception {
        List<Lease> held = new ArrayList<>();
        held.add(acquire(a, "short", LeaseMode.WRITE, SHORT));     // its key is gone at once after the step
        held.add(acquire(a, "long", LeaseMode.WRITE, LONG));       // its key outlives the step, shortened
        held.add(acquire(a, "read-short", LeaseMode.READ, SHORT)); // a read lease: a writer must wait for it
        held.add(acquire(a, "read-long", LeaseMode.READ, LONG));
        held.add(a.acquirePermit("slots", 1, LONG, Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS).orElseThrow());

        clock.offset(STEP_SECONDS);
        Thread.sleep(50); // the server reads its clock's file every 5 ms

        assertThat(tryWrite(b, held.get(0))).isEmpty(); // B's grant sees the step first, and repairs it
        // Both report the locks held off: a gateway's /health and its fail-closed metric read this.
        assertThat(b.failingClosed()).hasValueSatisfying(why -> assertThat(why).contains("clock stepped ahead"));
        Thread.sleep(1_500); // A's next reading of the clock (every second) reads the repair's record
        assertThat(a.failingClosed()).hasValueSatisfying(why -> assertThat(why).contains("clock stepped ahead"));
        awaitNoGrantWhileHeld(held);
        awaitEveryLockGrantedAgain(held);
        assertThat(b.failingClosed()).isEmpty();
    }

    @Test
    void theStepAheadThatUndoesAStepBackIsCaughtToo() throws Exception {
        clock.offset(-STEP_SECONDS);
        Thread.sleep(1_500); // the issuers take a reading on the clock stepped back: their course now
        List<Lease> held = List.of(acquire(a, "short", LeaseMode.WRITE, SHORT), acquire(a, "long", LeaseMode.WRITE, LONG));

        clock.offset(0);

        awaitNoGrantWhileHeld(held);
        awaitEveryLockGrantedAgain(held);
    }

    /**
     * Until the last holder's deadline (counted from before its acquire was sent), B tries each
     * lock still held, as a writer; none may be granted.
     */
    private void awaitNoGrantWhileHeld(List<Lease> held) throws Exception {
        long lastDeadline = held.stream().mapToLong(RedisClockStepIT::deadlineNanos).max().orElseThrow();
        while (System.nanoTime() < lastDeadline) {
            for (Lease lease : held) {
                if (System.nanoTime() < deadlineNanos(lease)) {
                    Optional<Lease> granted = tryWrite(b, lease);
                    assertThat(granted).as("%s granted to another caller %d ms before its holder's deadline",
                                    lease.lock(), TimeUnit.NANOSECONDS.toMillis(deadlineNanos(lease) - System.nanoTime()))
                            .isEmpty();
                }
            }
            Thread.sleep(100);
        }
    }

    /** It recovers on its own: every lock is granted again soon after its holder's deadline and the step's length. */
    private void awaitEveryLockGrantedAgain(List<Lease> held) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_SECONDS + 10);
        for (Lease lease : held) {
            Optional<Lease> again = Optional.empty();
            while (again.isEmpty() && System.nanoTime() < until) {
                again = tryWrite(b, lease);
                if (again.isEmpty()) {
                    Thread.sleep(100);
                }
            }
            assertThat(again).as("%s granted again", lease.lock()).isPresent();
            assertThat(again.get().token()).isGreaterThan(lease.token());
        }
    }

    private static Optional<Lease> tryWrite(RedisLeaseIssuer issuer, Lease lease) throws Exception {
        var attempt = lease.isPermit()
                ? issuer.acquirePermit("slots", 1, SHORT, Duration.ZERO)
                : issuer.acquire(lease.lock(), SHORT, Duration.ZERO);
        return attempt.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private static Lease acquire(RedisLeaseIssuer issuer, String lock, LeaseMode mode, Duration ttl) throws Exception {
        return issuer.acquire(lock, mode, ttl, Duration.ZERO, Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS)
                .orElseThrow();
    }

    /** The holder's deadline: its ttl from the moment its acquire was sent (what a holder counts from). */
    private static long deadlineNanos(Lease lease) {
        long ttlMs = lease.lock().contains("short") ? SHORT.toMillis() : LONG.toMillis();
        return lease.startedAtNanos() + TimeUnit.MILLISECONDS.toNanos(ttlMs);
    }
}
