package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Release wake-ups on the shared Redis, on a channel of a random prefix. */
class ReleaseSignalsIT {

    /**
     * One issuer's waiters of a lock are woken in the order they started waiting, so its longest
     * waiting caller's retry reaches Redis first; one that stopped waiting is not woken.
     */
    @Test
    void waitersOfALockAreWokenInTheOrderTheyStartedWaiting() {
        String channel = RedisTestPrefix.random() + "released";
        RedisClient client = RedisClient.create(RedisTestPrefix.SHARED_URI);
        try (ReleaseSignals signals = new ReleaseSignals(client, channel);
                var publisher = client.connect()) {
            List<Integer> woken = new CopyOnWriteArrayList<>();
            List<Runnable> waiters = IntStream.range(0, 12).<Runnable>mapToObj(i -> () -> woken.add(i)).toList();
            waiters.forEach(w -> signals.register("lock", w));
            signals.unregister("lock", waiters.get(3));
            signals.register("other", () -> woken.add(-1));

            publisher.sync().publish(channel, "lock");

            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> woken.size() >= 11);
            assertThat(woken).containsExactly(0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11);
        } finally {
            client.shutdown();
        }
    }
}
