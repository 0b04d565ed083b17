package io.fencegate.bench;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.WriteOutcome;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Value sizes through the gateway, each against the same bytes written without it: the files
 * store against a plain crash-atomic file write in this JVM (temp file, fsync, rename, fsync the
 * directory: what the store must do anyway), the Postgres store against a plain JDBC upsert of the
 * same value into a table without a guard. Then the gateway's memory under 64 concurrent 16 MiB PUTs.
 */
final class ValueSizes {
    static final int IN_FLIGHT = 4;
    static final int KEYS = 32;

    record Point(int bytes, String store, double gatewayMiBs, double plainMiBs, double ratio) { }

    record Burst(int requests, int ok, int failed, String failures, long peakRssBytes, long heapAfterGcBytes,
                 boolean aliveAfter) { }

    @FunctionalInterface
    interface Write {
        void run(int worker, String key) throws Exception;
    }

    private ValueSizes() {}

    static List<Point> run(FencegateClient client, long token, Path plainDir, String plainTable, int[] sizes,
                           Duration window) throws Exception {
        List<Point> points = new ArrayList<>();
        Files.createDirectories(plainDir);
        List<Connection> pg = new ArrayList<>();
        for (int i = 0; i < IN_FLIGHT; i++) {
            pg.add(DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", ""));
        }
        try {
            // The gateway's JIT and pools warm on the smallest size first; that run is not reported.
            byte[] warm = new byte[sizes[0]];
            mibPerSec(sizes[0], (w, key) -> check(client.put("files", "warm/" + key, token, warm)), window.multipliedBy(2));
            mibPerSec(sizes[0], (w, key) -> check(client.put("pg", "warm/" + key, token, warm)), window.multipliedBy(2));
            for (int size : sizes) {
                byte[] value = new byte[size];
                ThreadLocalRandom.current().nextBytes(value);
                Write viaFiles = (w, key) -> check(client.put("files", "v/" + key, token, value));
                Write plainFile = (w, key) -> atomicWrite(plainDir.resolve(key), value);
                points.add(compare(size, "files", viaFiles, plainFile, window));
                Write viaPg = (w, key) -> check(client.put("pg", "v/" + key, token, value));
                Write plainPg = (w, key) -> {
                    try (PreparedStatement st = pg.get(w).prepareStatement("INSERT INTO " + plainTable
                            + " (resource, val, token) VALUES (?, ?, 1) ON CONFLICT (resource) DO UPDATE SET val = EXCLUDED.val")) {
                        st.setString(1, key);
                        st.setBytes(2, value);
                        st.executeUpdate();
                    }
                };
                points.add(compare(size, "pg", viaPg, plainPg, window));
            }
        } finally {
            for (Connection c : pg) {
                c.close();
            }
        }
        return points;
    }

    private static void check(WriteOutcome outcome) {
        if (!(outcome instanceof WriteOutcome.Applied)) {
            throw new IllegalStateException("a write was not applied: " + outcome);
        }
    }

    private static Point compare(int size, String store, Write gateway, Write plain, Duration window) throws Exception {
        // Interleaved, twice each, the better of the two: a neighbour's burst hurts one run, not the figure.
        double g = 0;
        double p = 0;
        for (int round = 0; round < 2; round++) {
            g = Math.max(g, mibPerSec(size, gateway, window));
            p = Math.max(p, mibPerSec(size, plain, window));
        }
        Point point = new Point(size, store, g, p, g / p);
        System.err.printf(Locale.ROOT, "bench scale: %d B on %s: gateway %.1f MiB/s, plain %.1f MiB/s, ratio %.2f%n",
                size, store, g, p, g / p);
        return point;
    }

    private static double mibPerSec(int size, Write write, Duration window) throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(IN_FLIGHT);
        AtomicLong ops = new AtomicLong();
        long start = System.nanoTime();
        long stop = start + window.toNanos();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < IN_FLIGHT; w++) {
                int worker = w;
                done.add(workers.submit(() -> {
                    int i = 0;
                    do {
                        write.run(worker, "k" + (worker * KEYS / IN_FLIGHT + i++ % (KEYS / IN_FLIGHT)));
                        ops.incrementAndGet();
                    } while (System.nanoTime() < stop);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(10, TimeUnit.MINUTES);
            }
        } finally {
            workers.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return ops.get() * (double) size / 1048576.0 / seconds;
    }

    private static void atomicWrite(Path target, byte[] value) throws Exception {
        Path temp = target.resolveSibling(target.getFileName() + "." + Thread.currentThread().getId() + ".tmp");
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(value);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel dir = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        }
    }

    /** {@code requests} PUTs of {@code size} bytes at once to the files store; the gateway's memory meanwhile. */
    /**
     * The value's bytes read as they are sent, with its length. Why not ofByteArray: the JDK client
     * copies the whole array per request when it starts sending, so 64 bursting 16 MiB PUTs held a
     * GiB in the bench's own heap and ran it out of memory.
     */
    private static HttpRequest.BodyPublisher uncopied(byte[] value) {
        return HttpRequest.BodyPublishers.fromPublisher(
                HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(value)), value.length);
    }

    static Burst burst(URI gateway, long pid, long token, int requests, int size) throws Exception {
        byte[] value = new byte[size];
        ThreadLocalRandom.current().nextBytes(value);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newCachedThreadPool();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(pool)
                .connectTimeout(Duration.ofSeconds(10)).build();
        AtomicBoolean sampling = new AtomicBoolean(true);
        AtomicLong peak = new AtomicLong(ProcessMemory.rss(pid, false));
        Thread sampler = new Thread(() -> {
            while (sampling.get()) {
                peak.accumulateAndGet(ProcessMemory.rss(pid, false), Math::max);
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "bench-rss-sampler");
        sampler.setDaemon(true);
        sampler.start();
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            answers.add(http.sendAsync(HttpRequest.newBuilder(gateway.resolve("/v1/stores/files/items/burst/" + i))
                    .timeout(Duration.ofMinutes(3)).header("Fencing-Token", Long.toString(token))
                    .PUT(uncopied(value)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        int ok = 0;
        int failed = 0;
        java.util.Map<String, Integer> why = new java.util.TreeMap<>();
        for (CompletableFuture<HttpResponse<String>> a : answers) {
            try {
                HttpResponse<String> r = a.get(5, TimeUnit.MINUTES);
                if (r.statusCode() == 200) {
                    ok++;
                } else {
                    failed++;
                    why.merge("HTTP " + r.statusCode(), 1, Integer::sum);
                }
            } catch (Exception e) {
                failed++;
                why.merge(e.getCause() == null ? e.getClass().getSimpleName() : e.getCause().getClass().getSimpleName(), 1,
                        Integer::sum);
            }
        }
        sampling.set(false);
        sampler.join(2000);
        boolean alive;
        try {
            alive = http.send(HttpRequest.newBuilder(gateway.resolve("/health")).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (Exception e) {
            alive = false;
        }
        long heap = alive ? ProcessMemory.heapAfterGc(pid) : -1;
        pool.shutdownNow(); // Java 17 HttpClient has no close: its threads go with its executor
        Burst b = new Burst(requests, ok, failed, why.toString(), peak.get(), heap, alive);
        System.err.printf(Locale.ROOT, "bench scale: %d x %d B PUT at once: %d ok, %d failed %s; peak RSS %s, heap after GC %s,"
                + " alive %s%n", requests, size, ok, failed, why, ProcessMemory.mib(peak.get()), ProcessMemory.mib(heap), alive);
        return b;
    }
}
