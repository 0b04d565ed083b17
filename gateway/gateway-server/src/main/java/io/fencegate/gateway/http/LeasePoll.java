package io.fencegate.gateway.http;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One watched lease's poll of the issuer, shared by every stream on this gateway that watches it:
 * issuer reads grow with the leases watched, not with the watchers (a thousand watchers of one
 * lease cost one read every {@link LeaseEvents#POLL_MS} ms, not a thousand).
 *
 * <p>The poll runs on the event-loop context of the stream that started it; each watcher hears
 * on its own context, so a stream's state stays on one thread. The poll lives in its registry
 * while it has watchers and the lease lives: the last watcher to leave stops it, and a lease's
 * end removes it before the watchers are told, so a stream that comes later starts a new poll.
 */
final class LeasePoll {
    /** A stream, as the poll sees it. Every call arrives on the watcher's {@link #context()}. */
    interface Watcher {
        Context context();

        /** The lease was read and lives; {@code now} is what the issuer says of it. */
        void alive(Lease now);

        /** The issuer could not be read: nobody can say whether the lease ended. */
        void unavailable();

        /** The lease ended; {@code event} is {@code released}, {@code expired} or {@code lost}. */
        void ended(String event, long endedAt, Lease last);
    }

    private final Map<String, LeasePoll> registry;
    private final LeaseIssuer issuer;
    private final Context context;
    private final long timeoutMs;
    private final Set<Watcher> watchers = ConcurrentHashMap.newKeySet();
    /** The lease with the latest expiry anyone read: the line between {@code expired} and {@code lost}. */
    private volatile Lease last;
    private volatile boolean stopped;
    private volatile long timer = -1;

    private LeasePoll(Map<String, LeasePoll> registry, LeaseIssuer issuer, Context context, Lease lease, long timeoutMs) {
        this.registry = registry;
        this.issuer = issuer;
        this.context = context;
        this.timeoutMs = timeoutMs;
        this.last = lease;
    }

    /**
     * Adds {@code watcher} to the poll of {@code lease} in {@code registry}, starting one on the
     * caller's context if none runs. Answers the poll, for {@link #leave}.
     */
    static LeasePoll join(Map<String, LeasePoll> registry, LeaseIssuer issuer, Context context, Lease lease,
            long timeoutMs, Watcher watcher) {
        LeasePoll[] started = new LeasePoll[1];
        LeasePoll poll = registry.compute(lease.leaseId(), (id, running) -> {
            LeasePoll p = running;
            if (p == null) {
                p = started[0] = new LeasePoll(registry, issuer, context, lease, timeoutMs);
            } else {
                p.seen(lease);
            }
            p.watchers.add(watcher);
            return p;
        });
        if (started[0] != null) {
            started[0].schedule();
        }
        return poll;
    }

    /** Removes {@code watcher}; the last one to leave stops the poll. */
    void leave(Watcher watcher) {
        registry.computeIfPresent(last.leaseId(), (id, running) -> {
            if (running != this) {
                return running;
            }
            watchers.remove(watcher);
            if (watchers.isEmpty()) {
                stop();
                return null;
            }
            return running;
        });
        watchers.remove(watcher);
    }

    /** How many streams share this poll. */
    int watchers() {
        return watchers.size();
    }

    private synchronized void seen(Lease lease) {
        if (lease.expiresAt() > last.expiresAt()) {
            last = lease;
        }
    }

    private void schedule() {
        if (!stopped) {
            timer = context.owner().setTimer(LeaseEvents.POLL_MS, id -> poll());
        }
    }

    private void stop() {
        stopped = true;
        long t = timer;
        if (t >= 0) {
            context.owner().cancelTimer(t);
        }
    }

    private void poll() {
        if (stopped) {
            return;
        }
        call(issuer.find(last.leaseId())).onComplete(read -> {
            if (stopped) {
                return;
            }
            if (read.failed()) {
                tell(Watcher::unavailable);
                schedule();
                return;
            }
            Optional<Lease> now = read.result();
            if (now.isPresent()) {
                seen(now.get());
                tell(w -> w.alive(now.get()));
                schedule();
                return;
            }
            ended(System.currentTimeMillis());
        });
    }

    private void ended(long endedAt) {
        // Out of the registry first: a stream that joins from now on starts its own poll, which
        // finds the lease gone; every watcher still in this one is told below.
        registry.remove(last.leaseId(), this);
        stopped = true;
        Lease lease = last;
        call(issuer.wasReleased(lease)).onComplete(released -> {
            // Only a lost ZooKeeper session ends a lease before the latest expiry anyone saw.
            String event = released.succeeded() && released.result() ? "released"
                    : endedAt >= lease.expiresAt() ? "expired" : "lost";
            tell(w -> w.ended(event, endedAt, lease));
        });
    }

    private void tell(java.util.function.Consumer<Watcher> what) {
        for (Watcher w : watchers) {
            w.context().runOnContext(v -> what.accept(w));
        }
    }

    private <T> Future<T> call(java.util.concurrent.CompletionStage<T> stage) {
        return Future.fromCompletionStage(stage, context).timeout(timeoutMs, TimeUnit.MILLISECONDS);
    }
}
