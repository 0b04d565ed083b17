package io.fencegate.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * One lease contender in both call shapes: blocking threads (each calls acquire, then release, in a
 * loop) and asynchronous acquire-then-release chains in flight (each slot starts its next chain when
 * the last one is answered). A lock with no asynchronous API runs its blocking calls on a pool of
 * threads in the async shape: what an asynchronous caller pays to use it.
 *
 * @param blocking acquire and release {@code lock} on the calling thread
 * @param async    acquire and release {@code lock}; the stage completes after the release
 */
record LeaseShapes(String name, LockContender.AcquireRelease blocking, Function<String, CompletionStage<?>> async) {
    static final String BLOCKING = "blocking threads";
    static final String ASYNC = "async, in flight";
    static final String UNCONTENDED = "uncontended (a lock per worker)";

    /** A contender whose only API blocks: in the async shape, its calls run on {@code pool}. */
    static LeaseShapes blockingOnly(String name, LockContender.AcquireRelease body, ExecutorService pool) {
        return new LeaseShapes(name, body, lock -> CompletableFuture.runAsync(() -> {
            try {
                body.run(lock);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, pool));
    }

    /** Threads for the async shape of blocking-only locks: one per slot at c=16, daemon. */
    static ExecutorService pool(String name) {
        AtomicInteger n = new AtomicInteger();
        return Executors.newFixedThreadPool(16, r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    LockContender blockingContender() {
        return new LockContender(name, false, blocking);
    }

    AsyncContender asyncContender() {
        return new AsyncContender(name) {
            @Override
            protected CompletionStage<?> op(int slot) {
                return async.apply("w" + slot);
            }
        };
    }

    /** The scenario title of a shape: "uncontended (a lock per worker), blocking threads". */
    static String title(String shape) {
        return UNCONTENDED + ", " + shape;
    }

    /**
     * A lease group's scenarios: uncontended in both shapes, then contended: the same contenders on
     * one shared lock from 16 blocking threads (each op waits for the lock, so throughput is hand-offs).
     */
    static List<Scenario> all(String section, List<LeaseShapes> contenders) {
        List<Scenario> scenarios = new ArrayList<>(uncontended(section, contenders));
        scenarios.add(new Scenario(section, "contended (one lock, 16 waiters)", "acquire+release", 16,
                contenders.stream().map(c -> (Contender) c.blockingContender().onOneLock()).toList()));
        return scenarios;
    }

    /** Uncontended at 1 and 16, each in both shapes, fencegate first in each. */
    static List<Scenario> uncontended(String section, List<LeaseShapes> contenders) {
        String unit = "acquire+release";
        List<Contender> blocking = contenders.stream().map(c -> (Contender) c.blockingContender()).toList();
        List<Contender> async = contenders.stream().map(c -> (Contender) c.asyncContender()).toList();
        return List.of(
                new Scenario(section, title(BLOCKING), unit, 1, blocking),
                new Scenario(section, title(ASYNC), unit, 1, async),
                new Scenario(section, title(BLOCKING), unit, 16, blocking),
                new Scenario(section, title(ASYNC), unit, 16, async));
    }
}
