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
            List<BooleanSupplier> waiters = IntStream.range(0, 12).<BooleanSupplier>mapToObj(i -> () -> {
                woken.add(i);
                return i >= 5; // 0 to 4 stopped waiting
            }).toList();
            waiters.forEach(w -> signals.register("lock", w));
            signals.unregister("lock", waiters.get(3));
            signals.register("other", () -> woken.add(-1));
            assertThat(signals.othersWait("lock", waiters.get(0))).isTrue();
            assertThat(signals.othersWait("other", () -> true)).isTrue();
            assertThat(signals.othersWait("nobody", () -> true)).isFalse();

            publisher.sync().publish(channel, "lock");

            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> woken.size() >= 5);
            Thread.sleep(100);
            assertThat(woken).containsExactly(0, 1, 2, 4, 5);
        } finally {
            client.shutdown();
        }
    }
}
