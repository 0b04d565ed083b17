package io.fencegate.store.backend;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads of the stores that run blocking work (JDBC, file I/O) off their callers' threads.
 * Daemons, so a store that was never closed cannot keep a JVM alive; named, so a thread dump
 * says which store each belongs to.
 */
public final class StoreThreads {

    private StoreThreads() {}

    /** A factory of daemon threads named {@code prefix-1}, {@code prefix-2}, … */
    public static ThreadFactory daemons(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Stops {@code threads}: work already submitted may finish for up to 10 s, then what is left
     * is interrupted, so closing a store never hangs on a stuck backend.
     */
    public static void shutdown(ExecutorService threads) {
        threads.shutdown();
        try {
            if (!threads.awaitTermination(10, TimeUnit.SECONDS)) {
                threads.shutdownNow();
            }
        } catch (InterruptedException e) {
            threads.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
