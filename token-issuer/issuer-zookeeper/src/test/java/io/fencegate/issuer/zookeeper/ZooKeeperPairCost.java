package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.drivers.TracerDriver;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.server.ServerMetrics;

/**
 * Where an uncontended acquire+release pair's cost goes, measured without wall-clock: CPU time per
 * pair by thread group (ZooKeeper server, ZooKeeper/Curator client, the issuer's scheduler, the
 * calling threads), requests per pair (Curator's tracer) and bytes the server received and sent
 * per pair, for the issuer in both token modes and for raw create+delete, at 1 and 16 threads on
 * distinct locks; also bytes allocated per pair (allocKB.*), which load does not change. Run by hand (CPU per pair is load-insensitive enough to compare); not a test.
 * Args: [pairs per thread per run, default 2000]
 */
public final class ZooKeeperPairCost {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ZooKeeperPairCost() { }

    @FunctionalInterface
    interface Pair {
        void run(String lock) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        try (TestingServer server = new TestingServer(true)) {
            AtomicLong requests = new AtomicLong();
            try (CuratorFramework client = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryNTimes(3, 100))) {
                client.start();
                client.blockUntilConnected(10, TimeUnit.SECONDS);
                client.getZookeeperClient().setTracerDriver(new TracerDriver() {
                    @Override public void addTrace(String name, long time, TimeUnit unit) { requests.incrementAndGet(); }
                    @Override public void addCount(String name, int increment) { }
                });
                Map<String, Pair> contenders = new java.util.LinkedHashMap<>();
                List<AutoCloseable> issuers = new ArrayList<>();
                for (TokenMode mode : TokenMode.values()) {
                    LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().client(client).root("/cost-" + mode).tokenMode(mode).build();
                    issuers.add(issuer);
                    contenders.put(mode.name(), lock -> {
                        Lease lease = issuer.acquire(lock, Duration.ofSeconds(30), Duration.ofSeconds(30))
                                .toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
                        issuer.release(lease.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
                    });
                }
                contenders.put("raw", lock -> {
                    String path = client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                            .forPath("/raw/" + lock + "/n-");
                    client.delete().forPath(path);
                });
                for (int round = 0; round < 2; round++) { // the first round warms up the JIT
                    for (int threads : new int[] {1, 16}) {
                        for (Map.Entry<String, Pair> c : contenders.entrySet()) {
                            measure(c.getKey(), c.getValue(), threads, round == 0 ? pairs / 4 : pairs / threads * 2, requests, round > 0);
                        }
                    }
                }
                for (AutoCloseable issuer : issuers) {
                    issuer.close();
                }
            }
        }
    }

    private static void measure(String name, Pair pair, int threads, int perThread, AtomicLong requests, boolean print)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> new Thread(r, "driver-" + System.nanoTime()));
        // Threads exist before the first snapshot.
        List<Future<?>> warm = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            warm.add(pool.submit(() -> { }));
        }
        for (Future<?> f : warm) {
            f.get();
        }
        Map<String, Long> before = cpuByGroup();
        long requestsBefore = requests.get();
        long received = ServerMetrics.getMetrics().BYTES_RECEIVED_COUNT.get();
        long processCpu = processCpuNanos();
        List<Future<?>> runs = new ArrayList<>();
        AtomicInteger counter = new AtomicInteger();
        for (int t = 0; t < threads; t++) {
            String lock = "cost/" + name + "/" + t + "/" + System.nanoTime();
            runs.add(pool.submit(() -> {
                for (int i = 0; i < perThread; i++) {
                    pair.run(lock);
                    counter.incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<?> f : runs) {
            f.get();
        }
        long processDelta = processCpuNanos() - processCpu;
        Map<String, Long> after = cpuByGroup();
        pool.shutdown();
        long n = counter.get();
        if (!print) {
            return;
        }
        StringBuilder groups = new StringBuilder();
        for (String group : after.keySet()) {
            long d = after.get(group) - before.getOrDefault(group, 0L);
            groups.append(String.format(" %s=%.1f", group, d / 1000.0 / n));
        }
        System.out.printf("%-9s c=%-2d pairs=%d requests/pair=%.2f bytesIn/pair=%.0f processCpuUs/pair=%.1f |%s%n",
                name, threads, n, (requests.get() - requestsBefore) / (double) n,
                (ServerMetrics.getMetrics().BYTES_RECEIVED_COUNT.get() - received) / (double) n,
                processDelta / 1000.0 / n, groups);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** CPU ns of live threads, by group; threads that died meanwhile are lost (pools here are long-lived). */
    private static Map<String, Long> cpuByGroup() {
        Map<String, Long> groups = new TreeMap<>();
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long cpu = THREADS.getThreadCpuTime(info.getThreadId());
            if (cpu >= 0) {
                groups.merge(group(info.getThreadName()), cpu, Long::sum);
            }
            long allocated = ((com.sun.management.ThreadMXBean) THREADS).getThreadAllocatedBytes(info.getThreadId());
            if (allocated >= 0) {
                // Bytes allocated, in the same per-pair unit as the CPU microseconds (/1000).
                groups.merge(group(info.getThreadName()).equals("server") ? "allocKB.server" : "allocKB.client",
                        allocated, Long::sum);
            }
        }
        return groups;
    }

    private static String group(String thread) {
        if (thread.startsWith("SyncThread") || thread.startsWith("ProcessThread") || thread.startsWith("NIO")
                || thread.startsWith("SessionTracker") || thread.contains("RequestThrottler")) {
            return "server";
        }
        if (thread.contains("SendThread") || thread.contains("EventThread")) {
            return "zkClient";
        }
        if (thread.startsWith("Curator")) {
            return "curator";
        }
        if (thread.startsWith("fencegate")) {
            return "issuer";
        }
        if (thread.startsWith("driver")) {
            return "driver";
        }
        return "other";
    }
}
