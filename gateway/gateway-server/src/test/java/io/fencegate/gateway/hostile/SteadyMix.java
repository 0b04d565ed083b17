package io.fencegate.gateway.hostile;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Key b's steady traffic, the tenant a hostile key must not harm: {@link #WORKERS} workers, each
 * in a loop of leases, guarded writes and reads on both stores, every request timed into one
 * HdrHistogram. One cycle: a lease and a 1 KiB PUT and a GET on {@code main}; a lease and a 1 MiB
 * PUT on {@code main} (a body large enough to take part in the body budget); a lease, a 64 KiB
 * PUT and a GET on {@code files}; the three releases.
 */
final class SteadyMix {
    static final int WORKERS = 2;
    private static final byte[] SMALL = new byte[1024];
    private static final byte[] LARGE = new byte[1024 * 1024];
    private static final byte[] FILE = new byte[64 * 1024];

    private SteadyMix() {}

    /** What the mix saw: latencies (microseconds), and every answer that was not the expected one. */
    record Result(Histogram latencies, int requests, int fiveXx, List<String> failures) {
        long p99Millis() {
            return TimeUnit.MICROSECONDS.toMillis(latencies.getValueAtPercentile(99));
        }

        @Override
        public String toString() {
            return requests + " requests, p50 " + TimeUnit.MICROSECONDS.toMillis(latencies.getValueAtPercentile(50))
                    + " ms, p99 " + p99Millis() + " ms, max " + TimeUnit.MICROSECONDS.toMillis(latencies.getMaxValue())
                    + " ms, " + fiveXx + " 5xx, failures " + (failures.size() > 8 ? failures.subList(0, 8) + "…" : failures);
        }
    }

    /** Runs the mix for {@code duration} (each worker finishes the call it is in). */
    static Result run(Tenant b, Duration duration) throws InterruptedException {
        return run(b, System.nanoTime() + duration.toNanos(), false, duration.toMillis());
    }

    /** One cycle of each worker, however long it takes. */
    static Result once(Tenant b) throws InterruptedException {
        return run(b, Long.MAX_VALUE, true, 0);
    }

    private static Result run(Tenant b, long end, boolean once, long durationMs) throws InterruptedException {
        ConcurrentHistogram latencies = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(2), 3);
        AtomicInteger requests = new AtomicInteger();
        AtomicInteger fiveXx = new AtomicInteger();
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            Worker worker = new Worker(b, "w" + w, end, latencies, requests, fiveXx, failures);
            workers.add(daemon("steady-mix-" + w, () -> {
                do {
                    worker.cycle();
                } while (!once && System.nanoTime() < end);
            }));
        }
        for (Thread t : workers) {
            t.join(durationMs + 60_000);
        }
        return new Result(latencies, requests.get(), fiveXx.get(), List.copyOf(failures));
    }

    /** A started daemon thread (Java 17: no thread builders). */
    static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private record Worker(Tenant b, String name, long end, ConcurrentHistogram latencies, AtomicInteger requests,
                          AtomicInteger fiveXx, List<String> failures) {
        void cycle() {
            Tenant.Lease small = lease("main/b/" + name + "/small");
            Tenant.Lease large = lease("main/b/" + name + "/large");
            Tenant.Lease file = lease("files/b/" + name + "/file");
            if (small != null) {
                call("PUT main small", put("main", "b/" + name + "/small", small.token(), SMALL), 200);
                call("GET main small", b.request(Tenant.itemPath("main", "b/" + name + "/small")).GET().build(), 200);
            }
            if (large != null) {
                call("PUT main 1 MiB", put("main", "b/" + name + "/large", large.token(), LARGE), 200);
            }
            if (file != null) {
                call("PUT files 64 KiB", put("files", "b/" + name + "/file", file.token(), FILE), 200);
                call("GET files", b.request(Tenant.itemPath("files", "b/" + name + "/file")).GET().build(), 200);
            }
            for (Tenant.Lease l : new Tenant.Lease[] {small, large, file}) {
                if (l != null) {
                    call("release", b.request("/v1/leases/" + l.leaseId()).DELETE().build(), 204);
                }
            }
        }

        private HttpRequest put(String store, String key, long token, byte[] body) {
            return b.request(Tenant.itemPath(store, key)).header("Fencing-Token", Long.toString(token))
                    .PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        }

        /** Past the end, the cycle's remaining calls are skipped (its leases expire), so a hung gateway costs one call timeout. */
        private boolean over() {
            return System.nanoTime() > end;
        }

        private Tenant.Lease lease(String lock) {
            if (over()) {
                return null;
            }
            long start = System.nanoTime();
            requests.incrementAndGet();
            try {
                Tenant.Lease lease = b.acquire(lock, 10_000);
                record(start);
                return lease;
            } catch (Exception e) {
                record(start);
                fail("acquire " + lock, e);
                return null;
            }
        }

        private void call(String what, HttpRequest request, int expected) {
            if (over() && !what.equals("release")) {
                return;
            }
            long start = System.nanoTime();
            requests.incrementAndGet();
            try {
                HttpResponse<byte[]> r = b.send(request);
                record(start);
                if (r.statusCode() != expected) {
                    if (r.statusCode() >= 500) {
                        fiveXx.incrementAndGet();
                    }
                    failures.add(what + ": " + r.statusCode() + " " + new String(r.body(), 0, Math.min(200, r.body().length)));
                }
            } catch (Exception e) {
                record(start);
                fail(what, e);
            }
        }

        private void fail(String what, Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            if (e.getMessage() != null && e.getMessage().contains("answered 5")) {
                fiveXx.incrementAndGet();
            }
            failures.add(what + ": " + e);
        }

        private void record(long startNanos) {
            latencies.recordValue(Math.min(latencies.getHighestTrackableValue(),
                    TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - startNanos)));
        }
    }
}
