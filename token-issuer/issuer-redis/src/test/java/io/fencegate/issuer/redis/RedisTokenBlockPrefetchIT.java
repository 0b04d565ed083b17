package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The next token block is reserved in the background, before the current one runs out: acquires
 * must not wait for the mark's fsync, and Redis must still never hand out a token the durable mark
 * does not cover, whenever Redis loses its data. Runs on its own redis-server.
 */
@Timeout(120)
class RedisTokenBlockPrefetchIT extends OwnRedisServerTest {

    private static final String LOCK = "orders/7";
    private static final long BLOCK = 10;

    /** ... and when one still has to wait (the reservation ahead was too slow), blocks grow. */
    @Test
    void acquiresDoNotWaitForTheNextBlocksFsync() throws Exception {
        GatedMark mark = new GatedMark(new FileTokenHighWaterMark(dir.resolve("tokens.mark")));
        RedisLeaseIssuer issuer = newIssuer(mark);
        // the first block is reserved by the first acquire; every later raise waits at the gate
        assertThat(TokenCounterLossContract.grant(issuer, LOCK)).isEqualTo(1);
        mark.closeGate();
        for (long expected = 2; expected <= BLOCK; expected++) {
            assertThat(TokenCounterLossContract.grant(issuer, LOCK)).isEqualTo(expected);
        }
        assertThat(mark.waitingRaise.await(10, TimeUnit.SECONDS))
                .as("the next block was being reserved before the current one ran out").isTrue();
        CompletableFuture<Long> waiting = CompletableFuture.supplyAsync(() -> grantQuietly(issuer));
        org.awaitility.Awaitility.await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5))
                .until(() -> !waiting.isDone());
        mark.openGate();
        assertThat(waiting.get(10, TimeUnit.SECONDS)).as("the acquire that waited for the block").isEqualTo(BLOCK + 1);
        assertThat(TokenCounterLossContract.grant(issuer, LOCK)).isEqualTo(BLOCK + 2);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> mark.sizes.contains(2 * BLOCK));
        assertThat(mark.sizes).as("blocks reserved").startsWith(BLOCK, BLOCK).doesNotContain(4 * BLOCK);
    }

    private static long grantQuietly(RedisLeaseIssuer issuer) {
        try {
            return TokenCounterLossContract.grant(issuer, LOCK);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Every token handed out is at most Redis's ceiling, which is at most the durable mark, at
     * every moment, also while a block is being reserved ahead; so Redis coming back empty right
     * after a prefetched block came into use repeats nothing.
     */
    @Test
    void aPrefetchedBlockIsDurableBeforeRedisHandsOutItsTokens() throws Exception {
        Path markFile = dir.resolve("tokens.mark");
        RedisLeaseIssuer issuer = newIssuer(new FileTokenHighWaterMark(markFile));
        List<Long> before = new ArrayList<>();
        for (int i = 0; i < 3 * BLOCK + BLOCK / 2; i++) {
            long token = TokenCounterLossContract.grant(issuer, LOCK);
            before.add(token);
            // the ceiling first: the mark only grows, so a later read of it is no lower
            long ceiling = Long.parseLong(redis.sync().get(PREFIX + "token-ceiling"));
            long durable = new FileTokenHighWaterMark(markFile).read();
            assertThat(token).isLessThanOrEqualTo(ceiling);
            assertThat(ceiling).as("Redis's ceiling after token %d", token).isLessThanOrEqualTo(durable);
        }
        server.kill();
        server.startAgain(); // no persistence: counter and ceiling are gone

        long highestBefore = before.stream().mapToLong(Long::longValue).max().orElseThrow();
        for (RedisLeaseIssuer next : List.of(issuer, newIssuer(new FileTokenHighWaterMark(markFile)))) {
            assertThat(TokenCounterLossContract.grant(next, LOCK)).isGreaterThan(highestBefore);
        }
    }

    private RedisLeaseIssuer newIssuer(TokenHighWaterMark mark) {
        RedisLeaseIssuer issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(server.uri()).keyPrefix(PREFIX)
                .tokenBlock(BLOCK).commandTimeout(Duration.ofSeconds(1)).highWaterMark(mark));
        issuers.add(issuer);
        return issuer;
    }

    /** A mark whose raises can be held at a gate, standing for a slow fsync. */
    private static final class GatedMark implements TokenHighWaterMark {
        private final TokenHighWaterMark mark;
        private volatile CountDownLatch gate = new CountDownLatch(0);
        final CountDownLatch waitingRaise = new CountDownLatch(1);
        final List<Long> sizes = new java.util.concurrent.CopyOnWriteArrayList<>();

        GatedMark(TokenHighWaterMark mark) {
            this.mark = mark;
        }

        void closeGate() {
            gate = new CountDownLatch(1);
        }

        void openGate() {
            gate.countDown();
        }

        @Override
        public long read() {
            return mark.read();
        }

        @Override
        public long raise(long floor, long block) {
            sizes.add(block);
            CountDownLatch current = gate;
            if (current.getCount() > 0) {
                waitingRaise.countDown();
            }
            try {
                if (!current.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never opened the gate");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return mark.raise(floor, block);
        }

        @Override
        public <T> T whileFrozen(LongFunction<T> action) {
            return mark.whileFrozen(action);
        }
    }
}
