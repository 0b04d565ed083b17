package io.fencegate.bench;

import com.hazelcast.cp.CPGroupId;
import com.hazelcast.cp.internal.RaftService;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.core.HazelcastInstance;
import io.fencegate.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.drivers.TracerDriver;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;

/**
 * What one uncontended acquire+release costs each lease contender's backend, counted, not timed
 * (so load does not change it): one thread, one lock, {@code pairs} pairs after a warm-up.
 * <ul>
 *   <li>Redis, on a redis-server of its own: round trips = commands the clients sent (MONITOR
 *   lines with a client address), server commands = those plus the commands scripts ran
 *   (MONITOR's {@code lua} lines); by command name.</li>
 *   <li>ZooKeeper, on the group's own {@code TestingServer}: requests = what Curator sent (its
 *   tracer, by operation); write transactions = how far the zxid moved (each one logged and
 *   fsync'd). Hazelcast: Raft log entries its CP group committed (the commit index).</li>
 * </ul>
 * Run by hand: {@code java -cp bench/target/classes:$(cat bench/target/classpath.txt)
 * io.fencegate.bench.LeasePairCost [pairs, default 500]}.
 */
public final class LeasePairCost {
    private static final int WARM_UP = 50;

    private LeasePairCost() {}

    public static void main(String[] args) throws Exception {
        int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        zookeeper(pairs);
        redis(pairs);
        System.exit(0); // Hazelcast's and Redisson's threads
    }

    private static void zookeeper(int pairs) throws Exception {
        try (ZooKeeperLeases zk = new ZooKeeperLeases()) {
            CuratorFramework curator = zk.curator();
            Map<String, AtomicLong> traced = new TreeMap<>();
            curator.getZookeeperClient().setTracerDriver(new TracerDriver() {
                @Override
                public synchronized void addTrace(String name, long time, TimeUnit unit) {
                    traced.computeIfAbsent(name, n -> new AtomicLong()).incrementAndGet();
                }

                @Override
                public void addCount(String name, int increment) { }
            });
            curator.create().orSetData().forPath("/cost-probe");
            for (LeaseShapes c : zk.contenders()) {
                for (int i = 0; i < WARM_UP; i++) {
                    c.blocking().run("cost");
                }
                long raft0 = raftCommits(zk.hazelcast());
                long zxid0 = zxid(curator);
                synchronized (traced.values()) {
                    traced.clear();
                }
                for (int i = 0; i < pairs; i++) {
                    c.blocking().run("cost");
                }
                Map<String, Double> requests = new TreeMap<>();
                synchronized (LeasePairCost.class) {
                    traced.forEach((k, v) -> requests.put(k, v.get() / (double) pairs));
                }
                long txns = zxid(curator) - zxid0 - 1; // less the probe's own write
                double total = requests.values().stream().mapToDouble(Double::doubleValue).sum();
                System.out.printf("zookeeper | %s | requests/pair %.2f | write txns/pair %.2f | raft commits/pair %.2f | %s%n",
                        c.name(), total, txns / (double) pairs, (raftCommits(zk.hazelcast()) - raft0) / (double) pairs, requests);
            }
        }
    }

    /** The zxid of a write of our own: every write transaction moves it by one. */
    private static long zxid(CuratorFramework curator) throws Exception {
        Stat stat = curator.setData().forPath("/cost-probe", new byte[0]);
        return stat.getMzxid() & 0xffffffffL;
    }

    /** Raft entries committed, summed over the CP groups of the first member (METADATA and default). */
    private static long raftCommits(List<HazelcastInstance> members) {
        RaftService raft = ((HazelcastInstanceProxy) members.get(0)).getOriginal().node.getNodeEngine()
                .getService(RaftService.SERVICE_NAME);
        long sum = 0;
        for (CPGroupId group : raft.getCPGroupIds().join()) {
            var node = raft.getRaftNode(group);
            if (node != null) {
                sum += ((com.hazelcast.cp.internal.raft.impl.RaftNodeImpl) node).state().commitIndex();
            }
        }
        return sum;
    }

    private static void redis(int pairs) throws Exception {
        Path dir = Files.createTempDirectory("fencegate-lease-cost");
        RedisServer server = RedisServer.start(dir.resolve("redis"));
        RedisClient client = RedisClient.create(server.uri());
        try (RedisLeases redis = new RedisLeases(dir.resolve("work"), server.uri());
             StatefulRedisConnection<String, String> stats = client.connect()) {
            for (LeaseShapes c : redis.contenders()) {
                for (int i = 0; i < WARM_UP; i++) {
                    c.blocking().run("cost");
                }
                Path log = dir.resolve("monitor.log");
                Process monitor = new ProcessBuilder("redis-cli", "-p", Integer.toString(server.port()), "monitor")
                        .redirectOutput(log.toFile()).redirectErrorStream(true).start();
                awaitLine(log, "OK");
                server.command("ECHO cost-start");
                for (int i = 0; i < pairs; i++) {
                    c.blocking().run("cost");
                }
                server.command("ECHO cost-end");
                awaitLine(log, "\"cost-end\"");
                monitor.destroy();
                monitor.waitFor(10, TimeUnit.SECONDS);
                Map<String, Long> sent = new TreeMap<>();
                Map<String, Long> scripted = new TreeMap<>();
                boolean counting = false;
                for (String line : Files.readAllLines(log)) {
                    if (line.contains("\"cost-start\"")) {
                        counting = true;
                        continue;
                    }
                    if (line.contains("\"cost-end\"")) {
                        break;
                    }
                    int at = line.indexOf("] \"");
                    if (!counting || at < 0) {
                        continue;
                    }
                    String command = line.substring(at + 3, line.indexOf('"', at + 3)).toUpperCase();
                    (line.contains(" lua] ") ? scripted : sent).merge(command, 1L, Long::sum);
                }
                long trips = sent.values().stream().mapToLong(Long::longValue).sum();
                long inner = scripted.values().stream().mapToLong(Long::longValue).sum();
                System.out.printf("redis | %s | round trips/pair %.2f | server commands/pair %.2f | sent %s | in scripts %s%n",
                        c.name(), trips / (double) pairs, (trips + inner) / (double) pairs, perPair(sent, pairs),
                        perPair(scripted, pairs));
                // Again without MONITOR: Redis's own time a pair by command (a script's time includes its commands').
                stats.sync().configResetstat();
                for (int i = 0; i < pairs; i++) {
                    c.blocking().run("cost");
                }
                Map<String, Double> micros = new TreeMap<>();
                for (String line : stats.sync().info("commandstats").split("\r?\n")) {
                    if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_config")) {
                        long usec = Long.parseLong(line.replaceAll("^cmdstat_[^:]+:calls=\\d+,usec=(\\d+),.*", "$1"));
                        micros.put(line.substring("cmdstat_".length(), line.indexOf(':')), Math.round(100.0 * usec / pairs) / 100.0);
                    }
                }
                System.out.printf("redis | %s | server us/pair by command %s%n", c.name(), micros);
            }
        } finally {
            client.shutdown();
            server.kill();
        }
    }

    private static Map<String, Double> perPair(Map<String, Long> counts, int pairs) {
        Map<String, Double> out = new LinkedHashMap<>();
        counts.forEach((k, v) -> out.put(k, Math.round(100.0 * v / pairs) / 100.0));
        return out;
    }

    private static void awaitLine(Path log, String text) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log).contains(text)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("redis-cli monitor: no '" + text + "' in " + log);
    }
}
