package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Release wake-ups on the shared Redis, on a channel of a random prefix. */
class ReleaseSignalsIT {

    /**
     * A release wakes one waiter of the lock here: the longest waiting one that still waits (those
     * that stopped answer false and are passed over). The others are not woken, nor is a waiter
     * that unregistered, nor one of another lock.
     */
    @Test
    void aReleaseWakesTheLongestWaitingCallerThatStillWaits() throws Exception {
        String channel = RedisTestPrefix.random() + "released";
        RedisClient client = RedisClient.create(RedisTestPrefix.SHARED_URI);
        try (ReleaseSignals signals = new ReleaseSignals(client, channel);
                var publisher = client.connect()) {
            List<Integer> woken = new CopyOnWriteArrayList<>();
            List<ReleaseSignals.Waiter> waiters = IntStream.range(0, 12).<ReleaseSignals.Waiter>mapToObj(i -> waiter(() -> {
                woken.add(i);
                return i >= 5; // 0 to 4 stopped waiting
            }, true)).toList();
            waiters.forEach(w -> signals.register("lock", w));
            signals.unregister("lock", waiters.get(3));
            signals.register("other", waiter(() -> woken.add(-1), true));
            ReleaseSignals.Waiter self = waiter(() -> true, false);
            assertThat(signals.othersWait("lock", waiters.get(0))).isTrue();
            assertThat(signals.othersWait("other", self)).isTrue();
            assertThat(signals.othersWait("nobody", self)).isFalse();
            // A caller no 'held' answer refused yet (on its first try) is no one a grant must mark the lock for.
            signals.register("first-try", waiter(() -> woken.add(-2), false));
            assertThat(signals.othersWait("first-try", self)).isFalse();

            publisher.sync().publish(channel, "lock");

            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> woken.size() >= 5);
            Thread.sleep(100);
            assertThat(woken).containsExactly(0, 1, 2, 4, 5);
        } finally {
            client.shutdown();
        }
    }

    private static ReleaseSignals.Waiter waiter(BooleanSupplier wake, boolean refused) {
        return new ReleaseSignals.Waiter() {
            @Override
            public boolean wake() {
                return wake.getAsBoolean();
            }

            @Override
            public boolean refused() {
                return refused;
            }
        };
    }
}
