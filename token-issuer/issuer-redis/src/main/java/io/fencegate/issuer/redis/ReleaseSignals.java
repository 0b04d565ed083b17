package io.fencegate.issuer.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Wakes waiting acquirers when a lock is released: the release script PUBLISHes the lock name on
 * one channel per key prefix. A missed message (reconnect, expiry instead of release) only costs
 * latency: waiters also poll with a backoff.
 *
 * <p>Waiters of one lock are woken in the order they started waiting: their retries go out on
 * the one connection in that order, so among this issuer's waiters the longest waiting one
 * reaches Redis first (a hash-ordered set woke the same waiter first every time).
 */
final class ReleaseSignals implements AutoCloseable {

    private final Map<String, Queue<Runnable>> waiters = new ConcurrentHashMap<>();
    private final StatefulRedisPubSubConnection<String, String> pubsub;

    ReleaseSignals(RedisClient client, String channel) {
        this.pubsub = client.connectPubSub();
        pubsub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String ch, String lock) {
                Queue<Runnable> waiting = waiters.get(lock);
                if (waiting != null) {
                    waiting.forEach(Runnable::run);
                }
            }
        });
        try {
            pubsub.sync().subscribe(channel);
        } catch (RuntimeException e) {
            pubsub.close();
            throw e;
        }
    }

    void register(String lock, Runnable wake) {
        waiters.compute(lock, (k, queue) -> {
            Queue<Runnable> q = queue != null ? queue : new ConcurrentLinkedQueue<>();
            q.add(wake);
            return q;
        });
    }

    void unregister(String lock, Runnable wake) {
        waiters.computeIfPresent(lock, (k, queue) -> {
            queue.remove(wake);
            return queue.isEmpty() ? null : queue;
        });
    }

    @Override
    public void close() {
        pubsub.close();
    }
}
