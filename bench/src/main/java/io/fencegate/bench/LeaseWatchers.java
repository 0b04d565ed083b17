package io.fencegate.bench;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;

/**
 * SSE watchers of one lease on one gateway (ZooKeeper issuer): the requests ZooKeeper receives a
 * second while they watch (renewals and the session's pings are the floor, measured with no
 * watcher), and, when the holder stops renewing, how late each watcher is told {@code expired}.
 */
final class LeaseWatchers {
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final long WINDOW_MS = 3000;

    record Point(int watchers, double zkRequestsPerSec, long told, double tellP50Ms, double tellP99Ms, double tellMaxMs) { }

    private LeaseWatchers() {}

    static Point run(URI gateway, FencegateClient client, ZooKeeperFacts facts, int watchers) throws Exception {
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
        boolean jdk = Boolean.getBoolean("bench.watchers.jdk");
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newCachedThreadPool();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(pool)
                .connectTimeout(Duration.ofSeconds(10)).build();
        CountDownLatch opened = new CountDownLatch(watchers);
        AtomicLongArray toldAt = new AtomicLongArray(watchers);
        AtomicLongArray endedAt = new AtomicLongArray(watchers);
        List<CompletableFuture<?>> streams = new ArrayList<>();
        WatchStreams nio = null;
        try {
            if (jdk) {
            for (int i = 0; i < watchers; i++) {
                HttpRequest request = HttpRequest.newBuilder(gateway.resolve("/v1/leases/" + lease.leaseId() + "/events"))
                        .header("Accept", "text/event-stream").GET().build();
                streams.add(http.sendAsync(request, HttpResponse.BodyHandlers.fromLineSubscriber(
                        new Watcher(opened, toldAt, endedAt, i))));
            }
            if (!opened.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException((watchers - opened.getCount()) + " of " + watchers + " watch streams opened");
            }
            } else {
                nio = new WatchStreams(gateway, lease.leaseId(), watchers);
                toldAt = nio.toldAt;
                endedAt = nio.endedAt;
                if (!nio.awaitOpen(120)) {
                    throw new IllegalStateException(nio.openCount() + " of " + watchers + " watch streams opened");
                }
            }
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
            Histogram detect = Sample.newHistogram();
            Histogram deliver = Sample.newHistogram();
            for (int i = 0; i < watchers; i++) {
                if (toldAt.get(i) != 0 && endedAt.get(i) != 0) {
                    detect.recordValue(Math.max(0, endedAt.get(i) - expiry));
                    deliver.recordValue(Math.max(0, toldAt.get(i) - endedAt.get(i)));
                }
            }
            if (watchers > 0) {
                System.err.printf(Locale.ROOT, "bench scale: %d watchers (%s): gateway saw the end p50 %d p99 %d ms after expiry;"
                        + " end event read p50 %d p99 %d max %d ms after that%n", watchers, jdk ? "jdk" : "nio",
                        detect.getValueAtPercentile(50), detect.getValueAtPercentile(99),
                        deliver.getValueAtPercentile(50), deliver.getValueAtPercentile(99), deliver.getMaxValue());
            }
            Point p = new Point(watchers, rate, told, watchers == 0 ? Double.NaN : tell.getValueAtPercentile(50),
                    watchers == 0 ? Double.NaN : tell.getValueAtPercentile(99), watchers == 0 ? Double.NaN : max);
            System.err.printf(Locale.ROOT, "bench scale: %d watchers: ZooKeeper %.0f requests/s; expiry told to %d, "
                    + "p50 %.0f ms p99 %.0f ms max %.0f ms late%n", watchers, rate, told, p.tellP50Ms(), p.tellP99Ms(), max);
            return p;
        } finally {
            renewing.set(false);
            streams.forEach(s -> s.cancel(true));
            if (nio != null) {
                nio.close();
            }
            pool.shutdownNow(); // Java 17 HttpClient has no close: its threads go with its executor
        }
    }

    /** Reads one stream: counts it open at its first comment, stamps the {@code expired} event. */
    private static final class Watcher implements Flow.Subscriber<String> {
        private final CountDownLatch opened;
        private final AtomicLongArray toldAt;
        private final AtomicLongArray endedAt;
        private final int index;
        private boolean open;
        private boolean ending;

        Watcher(CountDownLatch opened, AtomicLongArray toldAt, AtomicLongArray endedAt, int index) {
            this.opened = opened;
            this.toldAt = toldAt;
            this.endedAt = endedAt;
            this.index = index;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(String line) {
            if (!open && line.startsWith(": watching")) {
                open = true;
                opened.countDown();
            } else if (line.equals("event: expired") || line.equals("event: lost")) {
                toldAt.set(index, System.currentTimeMillis());
                ending = true;
            } else if (ending && line.startsWith("data: ")) {
                ending = false;
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"endedAt\":(\\d+)").matcher(line);
                if (m.find()) {
                    endedAt.set(index, Long.parseLong(m.group(1)));
                }
            }
        }

        @Override
        public void onError(Throwable throwable) {
            // cancelled at the end, or the gateway closed it
        }

        @Override
        public void onComplete() {
            // the stream ends after the end event
        }
    }
}
