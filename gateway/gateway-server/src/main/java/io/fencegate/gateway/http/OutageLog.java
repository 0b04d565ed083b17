package io.fencegate.gateway.http;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a backend failure's details go: the log, never the answer (an address, a pool name or a
 * driver message tells a client, or anyone who can reach {@code /health}, how the deployment looks).
 * During an outage every request fails the same way, so each backend gets at most one WARN line per
 * interval, with a count of the failures in between: the log does not grow with the request rate.
 */
final class OutageLog {
    private static final Logger LOG = LoggerFactory.getLogger(OutageLog.class);

    private final long intervalNanos;
    private final ConcurrentMap<String, Window> windows = new ConcurrentHashMap<>();

    /** The next time a line may be logged for one backend, and the failures not logged since the last. */
    private record Window(AtomicLong nextLogAt, AtomicLong unlogged) {}

    OutageLog(Duration interval) {
        this.intervalNanos = interval.toNanos();
    }

    /** Records that {@code backend} (e.g. {@code store 'orders'}, {@code issuer}) failed with {@code cause}. */
    void failed(String backend, Throwable cause) {
        long now = System.nanoTime();
        Window w = windows.computeIfAbsent(backend, k -> new Window(new AtomicLong(now), new AtomicLong()));
        long due = w.nextLogAt().get();
        if (now - due < 0 || !w.nextLogAt().compareAndSet(due, now + intervalNanos)) {
            w.unlogged().incrementAndGet();
            return;
        }
        long unlogged = w.unlogged().getAndSet(0);
        LOG.warn("{} unavailable: {}{}", backend, cause,
                unlogged == 0 ? "" : " (" + unlogged + " more failures since the last line)");
    }
}
