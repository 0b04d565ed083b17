package io.fencegate.issuer.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

/**
 * Wakes waiting acquirers when a lock is released: the release script PUBLISHes the lock name on
 * one channel per key prefix. A missed message (reconnect, expiry instead of release) only costs
 * latency: waiters also poll with a backoff.
 *
 * <p>A release wakes one waiter of the lock here: the longest waiting one that still waits (a
 * waiter answers false once it stopped). Waking all of them sent one retry each, all but one
 * answered "held", for every hand-off. The ones not woken are woken by the next release: the
 * woken waiter marks the lock again, by its "held" answer or, if it won, by its grant (the issuer
 * asks the grant to mark the lock while {@link #othersWait} here).
 *
 * <p>Permit waiters register under their semaphore's name: a permit's release publishes its slot's
 * lock {@code name/k}, which wakes one waiter of {@code name/k} and one of {@code name} (a plain
 * lock named {@code name} may get a wake-up it did not need: a retry that answers held).
 */
final class ReleaseSignals implements AutoCloseable {

    private final Map<String, Queue<BooleanSupplier>> waiters = new ConcurrentHashMap<>();
    private final StatefulRedisPubSubConnection<String, String> pubsub;

    ReleaseSignals(RedisClient client, String channel) {
        this.pubsub = client.connectPubSub();
        pubsub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String ch, String lock) {
                wakeOne(lock);
                // A permit's release names its slot's lock 'name/k'; permit waiters wait on 'name'.
                int slash = lock.lastIndexOf('/');
                if (slash > 0) {
                    wakeOne(lock.substring(0, slash));
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

    private void wakeOne(String lock) {
        wakeNext(lock, null);
    }

    /** Wakes the longest waiting caller of {@code lock} here but {@code self} (a woken caller passing its wake-up on). */
    void wakeNext(String lock, BooleanSupplier self) {
        Queue<BooleanSupplier> waiting = waiters.get(lock);
        if (waiting != null) {
            for (BooleanSupplier wake : waiting) {
                if (wake != self && wake.getAsBoolean()) {
                    return;
                }
            }
        }
    }

    /** @param wake retries the waiter's acquire, or answers false if it no longer waits */
    void register(String lock, BooleanSupplier wake) {
        waiters.compute(lock, (k, queue) -> {
            Queue<BooleanSupplier> q = queue != null ? queue : new ConcurrentLinkedQueue<>();
            q.add(wake);
            return q;
        });
    }

    /** Whether anyone but {@code self} waits for the lock here. */
    boolean othersWait(String lock, BooleanSupplier self) {
        Queue<BooleanSupplier> waiting = waiters.get(lock);
        if (waiting != null) {
            for (BooleanSupplier wake : waiting) {
                if (wake != self) {
                    return true;
                }
            }
        }
        return false;
    }

    void unregister(String lock, BooleanSupplier wake) {
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
