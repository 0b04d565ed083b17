package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.testing.ChildProcess;
import io.fencegate.testing.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** An unreachable or silent Redis fails calls within bounded time with a clear error; no hang. */
@Timeout(90)
class RedisUnreachableIT {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

    @TempDir
    Path dir;

    private RedisServer server;

    @AfterEach
    void stopServer() throws InterruptedException {
        if (server != null) {
            server.kill();
            assertThat(server.isAlive()).isFalse();
        }
    }

    private RedisIssuerOptions options(String uri) {
        return new RedisIssuerOptions().uri(uri).keyPrefix("fencegate-test:")
                .commandTimeout(COMMAND_TIMEOUT).connectTimeout(Duration.ofMillis(500))
                .highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.mark")));
    }

    @Test
    void closedPortFailsConstructionFastWithAClearError() throws Exception {
        String uri = "redis://127.0.0.1:" + ChildProcess.freePort();
        long start = System.nanoTime();
        assertThatThrownBy(() -> new RedisLeaseIssuer(options(uri)))
                .isInstanceOf(IssuerUnavailableException.class)
                .hasMessageContaining("unreachable")
                .hasMessageContaining(uri.substring("redis://".length()));
        assertThat(elapsedMs(start)).isLessThan(10_000);
    }

    @Test
    void killedServerFailsAcquireAndWaitersFastThenIssuerRecoversAfterRestart() throws Exception {
        server = RedisServer.start(dir.resolve("redis"));
        try (RedisLeaseIssuer issuer = new RedisLeaseIssuer(options(server.uri()))) {
            Lease before = await(issuer.acquire("held", Duration.ofSeconds(60), Duration.ZERO)).orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = issuer.acquire("held", Duration.ofSeconds(5), Duration.ofSeconds(60))
                    .toCompletableFuture();

            server.kill();
            long start = System.nanoTime();
            assertUnavailable(issuer.acquire("other", Duration.ofSeconds(5), Duration.ZERO).toCompletableFuture());
            assertUnavailable(issuer.acquire("other", Duration.ofSeconds(5), Duration.ofSeconds(30)).toCompletableFuture());
            assertUnavailable(issuer.renew(before.leaseId()).toCompletableFuture());
            assertUnavailable(waiter);
            assertThat(elapsedMs(start)).isLessThan(10_000);

            server.startAgain(); // empty: no persistence
            Lease after = acquireWithin(issuer, "held", Duration.ofSeconds(20));
            assertThat(after.token()).isGreaterThan(before.token());
        }
    }

    @Test
    void silentServerTimesOutAtTheCommandTimeout() throws Exception {
        server = RedisServer.start(dir.resolve("redis"));
        try (RedisLeaseIssuer issuer = new RedisLeaseIssuer(options(server.uri()))) {
            await(issuer.acquire("x", Duration.ofSeconds(5), Duration.ZERO)).orElseThrow();
            signal("STOP", server.pid()); // accepts TCP, never answers
            try {
                long start = System.nanoTime();
                assertUnavailable(issuer.acquire("y", Duration.ofSeconds(5), Duration.ZERO).toCompletableFuture());
                assertUnavailable(issuer.wasGranted("y", 12345).toCompletableFuture());
                assertThat(elapsedMs(start)).isLessThan(10_000);
            } finally {
                signal("CONT", server.pid());
            }
        }
    }

    private static Lease acquireWithin(RedisLeaseIssuer issuer, String lock, Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            try {
                Optional<Lease> lease = await(issuer.acquire(lock, Duration.ofSeconds(5), Duration.ZERO));
                if (lease.isPresent()) {
                    return lease.get();
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof IssuerUnavailableException) || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            Thread.sleep(50);
        }
    }

    private static void assertUnavailable(CompletableFuture<?> call) {
        assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(IssuerUnavailableException.class)
                .hasMessageContaining("Redis");
    }

    private static void signal(String signal, long pid) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor()).isZero();
    }

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private static long elapsedMs(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
