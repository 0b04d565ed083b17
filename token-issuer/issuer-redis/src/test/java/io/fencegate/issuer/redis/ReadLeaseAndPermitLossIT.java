package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseMode;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Read leases and permits when Redis loses its data (FLUSHALL, a restart without persistence), on a
 * redis-server of its own: they take their tokens from the same counter and durable mark as write
 * leases, so no grant after the loss has a lower token than one before it, in either mode or on any
 * slot; the lost leases are over (renew refuses them); a semaphore's count, lost with them, is fixed
 * again by the next acquire. A count key lost alone while a slot above the asked count is held is
 * refused, so a permit too many is never granted.
 */
@Timeout(120)
class ReadLeaseAndPermitLossIT extends OwnRedisServerTest {

    private static final Duration TTL = Duration.ofSeconds(30);

    @Test
    void readLeasesAndPermitsGrantedAfterAFlushallOrARestartHaveHigherTokens() throws Exception {
        RedisLeaseIssuer issuer = newIssuer(server);
        Lease read = read(issuer);
        Lease permit = permit(issuer, 3);
        Lease otherSlot = permit(issuer, 3);
        assertThat(permit.slot()).isZero();

        assertThat(server.command("FLUSHALL")).isEqualTo("+OK");
        assertThat(await(issuer.renew(read.leaseId()))).as("a read lease lost with Redis's data").isEmpty();
        assertThat(await(issuer.renew(permit.leaseId()))).as("a permit lost with Redis's data").isEmpty();
        Lease readAfterFlush = read(issuer);
        Lease permitAfterFlush = permit(issuer, 3);
        assertThat(readAfterFlush.token()).isGreaterThan(otherSlot.token());
        assertThat(permitAfterFlush.slot()).isEqualTo(permit.slot());
        assertThat(permitAfterFlush.token()).as("the slot's next holder fences out its lost one").isGreaterThan(otherSlot.token());
        // Forgotten grants answer empty (a store then refuses the token), except where already known.
        try (RedisLeaseIssuer fresh = newIssuer(server)) {
            assertThat(await(fresh.grantedMode("orders/1", read.token()))).isEmpty();
            assertThat(await(fresh.grantedMode("orders/1", readAfterFlush.token()))).contains(LeaseMode.READ);
        }
        assertThat(await(issuer.grantedMode("orders/1", read.token()))).contains(LeaseMode.READ);

        server.kill();
        server.startAgain();
        Lease readAfterRestart = retrying(() -> issuer.acquire("orders/1", LeaseMode.READ, TTL, Duration.ZERO, Duration.ZERO));
        Lease permitAfterRestart = retrying(() -> issuer.acquirePermit("pool", 3, TTL, Duration.ZERO));
        assertThat(readAfterRestart.token()).isGreaterThan(permitAfterFlush.token());
        assertThat(permitAfterRestart.token()).isGreaterThan(readAfterRestart.token());
        assertThat(permitAfterRestart.slot()).isEqualTo(permit.slot());
        assertThat(await(issuer.release(readAfterRestart.leaseId()))).isTrue();
        Lease write = await(issuer.acquire("orders/1", TTL, Duration.ZERO)).orElseThrow();
        assertThat(write.token()).isGreaterThan(permitAfterRestart.token());
    }

    @Test
    void aCountLostAloneWhileAHigherSlotIsHeldRefusesASmallerCount() throws Exception {
        RedisLeaseIssuer issuer = newIssuer(server);
        permit(issuer, 3);
        permit(issuer, 3);
        Lease third = permit(issuer, 3);
        assertThat(third.slot()).isEqualTo(2);
        assertThat(redis.sync().del(PREFIX + "permits:pool")).isEqualTo(1L); // evicted or deleted by hand
        assertThat(failure(issuer.acquirePermit("pool", 2, TTL, Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slot 2 is still held");
        assertThat(await(issuer.release(third.leaseId()))).isTrue();
        // Nothing above slot 1 is held now: the count 2 is fixed again, and both its slots are held.
        assertThat(await(issuer.acquirePermit("pool", 2, TTL, Duration.ZERO))).isEmpty();
        assertThat(failure(issuer.acquirePermit("pool", 3, TTL, Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has 2 permits");
    }

    private Lease read(RedisLeaseIssuer issuer) throws Exception {
        return await(issuer.acquire("orders/1", LeaseMode.READ, TTL, Duration.ZERO, Duration.ZERO)).orElseThrow();
    }

    private Lease permit(RedisLeaseIssuer issuer, int permits) throws Exception {
        return await(issuer.acquirePermit("pool", permits, TTL, Duration.ZERO)).orElseThrow();
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private static Throwable failure(CompletionStage<?> stage) throws Exception {
        try {
            await(stage);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected a failure");
    }

    /** Retries while the client reconnects after the restart; bounded. */
    private static Lease retrying(java.util.concurrent.Callable<CompletionStage<Optional<Lease>>> call) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return await(call.call()).orElseThrow();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof IssuerUnavailableException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }
}
