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
 * <p>A release wakes one waiter of the lock here: the longest waiting one that still waits (a
 * waiter answers false once it stopped). Waking all of them sent one retry each, all but one
 * answered "held", for every hand-off. The ones not woken are woken by the next release: the
 * woken waiter marks the lock again, by its "held" answer or, if it won, by its grant (the issuer
 * asks the grant to mark the lock while {@link #othersWait} here). Only callers that a 'held'
 * answer refused count there: a caller still on its first try has no mark to lose, and if it is
 * refused, its own answer marks the lock, atomically with the refusal. So grants made beside other
 * callers in flight (permits of one semaphore, all granted) mark nothing and their releases publish
 * nothing.
 *
 * <p>Permit waiters register under their semaphore's name: a permit's release publishes its slot's
 * lock {@code name/k}, which wakes one waiter of {@code name/k} and one of {@code name} (a plain
 * lock named {@code name} may get a wake-up it did not need: a retry that answers held).
 */
final class ReleaseSignals implements AutoCloseable {

    /** A caller that may wait for a lock here. */
    interface Waiter {
        /** Retries the caller's acquire, or answers false if it no longer waits. */
        boolean wake();

        /** Whether a 'held' answer has refused the caller since it started. */
        boolean refused();
    }

    private final Map<String, Queue<Waiter>> waiters = new ConcurrentHashMap<>();
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
    void wakeNext(String lock, Waiter self) {
        Queue<Waiter> waiting = waiters.get(lock);
        if (waiting != null) {
            for (Waiter waiter : waiting) {
                if (waiter != self && waiter.wake()) {
                    return;
                }
            }
        }
    }

    void register(String lock, Waiter waiter) {
        waiters.compute(lock, (k, queue) -> {
            Queue<Waiter> q = queue != null ? queue : new ConcurrentLinkedQueue<>();
            q.add(waiter);
            return q;
        });
    }

    /** Whether anyone but {@code self} waits for the lock here after a 'held' answer. */
    boolean othersWait(String lock, Waiter self) {
        Queue<Waiter> waiting = waiters.get(lock);
        if (waiting != null) {
            for (Waiter waiter : waiting) {
                if (waiter != self && waiter.refused()) {
                    return true;
                }
            }
        }
        return false;
    }

    void unregister(String lock, Waiter waiter) {
        waiters.computeIfPresent(lock, (k, queue) -> {
            queue.remove(waiter);
            return queue.isEmpty() ? null : queue;
        });
    }

    @Override
    public void close() {
        pubsub.close();
    }
}
