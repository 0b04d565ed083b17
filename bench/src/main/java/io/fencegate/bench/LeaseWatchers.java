package io.fencegate.bench;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;

/**
 * SSE watchers of one lease on one gateway (ZooKeeper issuer): the requests ZooKeeper receives a
 * second while they watch (renewals and the session's pings are the floor, measured with no
 * watcher), and, when the holder stops renewing, how late each watcher is told {@code expired},
 * split in two: until the gateway saw the end (the event's {@code endedAt}), then until the
 * stream's event was read ({@link WatchStreams} stamps it as its bytes arrive).
 */
final class LeaseWatchers {
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final long WINDOW_MS = 3000;

    record Point(int watchers, double zkRequestsPerSec, long told, double tellP50Ms, double tellP99Ms, double tellMaxMs,
                 double seenP99Ms, double readP99Ms, long gatewayHeap, long gatewayRss) { }

    private LeaseWatchers() {}

    /** {@code gatewayPid}: the gateway's heap after a full GC is taken while the streams are open. */
    static Point run(URI gateway, long gatewayPid, FencegateClient client, ZooKeeperFacts facts, int watchers) throws Exception {
        Lease lease = client.acquire("watched/" + watchers, TTL, Duration.ZERO).orElseThrow();
        AtomicLong expiresAt = new AtomicLong(lease.expiresAt().toEpochMilli());
        AtomicBoolean renewing = new AtomicBoolean(true);
        Thread renewer = new Thread(() -> {
            while (renewing.get()) {
                Optional<Instant> renewed = client.renew(lease.leaseId());
                renewed.ifPresent(at -> expiresAt.set(at.toEpochMilli()));
                try {
                    Thread.sleep(TTL.toMillis() / 4);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "bench-renewer");
        renewer.start();
        try (WatchStreams streams = new WatchStreams(gateway, lease.leaseId(), watchers)) {
            if (!streams.awaitOpen(120)) {
                throw new IllegalStateException(streams.openCount() + " of " + watchers + " watch streams opened");
            }
            AtomicLongArray toldAt = streams.toldAt;
            AtomicLongArray endedAt = streams.endedAt;
            Thread.sleep(500);
            // Before the window: the full GC's pause must not fall into what is timed.
            long heap = ProcessMemory.heapAfterGc(gatewayPid);
            long rss = ProcessMemory.rss(gatewayPid, false);
            Thread.sleep(500);
            long p0 = facts.packetsReceived();
            long t0 = System.nanoTime();
            Thread.sleep(WINDOW_MS);
            long p1 = facts.packetsReceived();
            double rate = (p1 - p0) / ((System.nanoTime() - t0) / 1e9);
            renewing.set(false);
            renewer.join(10_000);
            long expiry = expiresAt.get();
            long waitUntil = expiry + 15_000;
            Histogram tell = Sample.newHistogram();
            long told = 0;
            while (System.currentTimeMillis() < waitUntil) {
                told = 0;
                for (int i = 0; i < watchers; i++) {
                    told += toldAt.get(i) != 0 ? 1 : 0;
                }
                if (told == watchers) {
                    break;
                }
                Thread.sleep(100);
            }
            double max = 0;
            for (int i = 0; i < watchers; i++) {
                long at = toldAt.get(i);
                if (at != 0) {
                    long late = Math.max(1, at - expiry);
                    tell.recordValue(late);
                    max = Math.max(max, late);
                }
            }
            Histogram seen = Sample.newHistogram();
            Histogram read = Sample.newHistogram();
            for (int i = 0; i < watchers; i++) {
                if (toldAt.get(i) != 0 && endedAt.get(i) != 0) {
                    seen.recordValue(Math.max(0, endedAt.get(i) - expiry));
                    read.recordValue(Math.max(0, toldAt.get(i) - endedAt.get(i)));
                }
            }
            if (watchers > 0) {
                System.err.printf(Locale.ROOT, "bench scale: %d watchers: the gateway saw the end p50 %d p99 %d ms after the expiry;"
                        + " its event was read p50 %d p99 %d max %d ms after that%n", watchers,
                        seen.getValueAtPercentile(50), seen.getValueAtPercentile(99),
                        read.getValueAtPercentile(50), read.getValueAtPercentile(99), read.getMaxValue());
            }
            Point p = new Point(watchers, rate, told, watchers == 0 ? Double.NaN : tell.getValueAtPercentile(50),
                    watchers == 0 ? Double.NaN : tell.getValueAtPercentile(99), watchers == 0 ? Double.NaN : max,
                    watchers == 0 ? Double.NaN : seen.getValueAtPercentile(99),
                    watchers == 0 ? Double.NaN : read.getValueAtPercentile(99), heap, rss);
            System.err.printf(Locale.ROOT, "bench scale: %d watchers: ZooKeeper %.0f requests/s; expiry told to %d, "
                    + "p50 %.0f ms p99 %.0f ms max %.0f ms late%n", watchers, rate, told, p.tellP50Ms(), p.tellP99Ms(), max);
            return p;
        } finally {
            renewing.set(false);
        }
    }
}
