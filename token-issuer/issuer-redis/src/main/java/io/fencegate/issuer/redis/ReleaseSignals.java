package io.fencegate.issuer.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Wakes waiting acquirers when a lock is released: the release script PUBLISHes the lock name on
 * one channel per key prefix. A missed message (reconnect, expiry instead of release) only costs
 * latency: waiters also poll with a backoff.
 */
final class ReleaseSignals implements AutoCloseable {

    private final Map<String, Set<Runnable>> waiters = new ConcurrentHashMap<>();
    private final StatefulRedisPubSubConnection<String, String> pubsub;

    ReleaseSignals(RedisClient client, String channel) {
        this.pubsub = client.connectPubSub();
        pubsub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String ch, String lock) {
                Set<Runnable> waiting = waiters.get(lock);
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
        waiters.compute(lock, (k, set) -> {
            Set<Runnable> s = set != null ? set : ConcurrentHashMap.newKeySet();
            s.add(wake);
            return s;
        });
    }

    void unregister(String lock, Runnable wake) {
        waiters.computeIfPresent(lock, (k, set) -> {
            set.remove(wake);
            return set.isEmpty() ? null : set;
        });
    }

    @Override
    public void close() {
        pubsub.close();
    }
}
