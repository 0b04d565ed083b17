package io.fencegate.bench;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.lock.FencedLock;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.TokenMode;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;

/**
 * Leases on ZooKeeper: fencegate's issuer in both token modes against raw Curator (create an
 * EPHEMERAL_SEQUENTIAL node, delete it: the floor, no exclusion), Curator's InterProcessMutex and
 * Hazelcast's CP FencedLock (3 CP members in this JVM; a different system, so a loose comparison).
 * One in-process ZooKeeper ({@code TestingServer}, which fsyncs its log) serves all of them.
 */
final class ZooKeeperLeases implements AutoCloseable {
    static final String SECTION = "Leases: ZooKeeper";
    private static final Duration TTL = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final TestingServer server;
    private final CuratorFramework curator;
    private final List<HazelcastInstance> hazelcast = new ArrayList<>();
    private final List<AutoCloseable> owned = new ArrayList<>();

    ZooKeeperLeases() throws Exception {
        server = new TestingServer(true);
        curator = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryNTimes(3, 100));
        curator.start();
        curator.blockUntilConnected(30, TimeUnit.SECONDS);
        startHazelcast();
    }

    List<Scenario> scenarios() {
        List<Contender> contenders = List.of(
                issuer("fencegate ZooKeeper (zxid)", TokenMode.ZXID, "/fg-zxid"),
                issuer("fencegate ZooKeeper (cversion)", TokenMode.CVERSION, "/fg-cversion"),
                rawCreateDelete(),
                curatorMutex(),
                hazelcastFencedLock());
        String unit = "acquire+release";
        return List.of(
                new Scenario(SECTION, "uncontended (a lock per worker)", unit, 1, contenders),
                new Scenario(SECTION, "uncontended (a lock per worker)", unit, 16, contenders),
                new Scenario(SECTION, "contended (one lock, 16 waiters)", unit, 16, contended(contenders)));
    }

    /** The same contenders on one shared lock: each op waits for the lock, so throughput is hand-offs. */
    private static List<Contender> contended(List<Contender> uncontended) {
        return uncontended.stream().map(c -> (Contender) ((LockContender) c).onOneLock()).toList();
    }

    private LockContender issuer(String name, TokenMode mode, String root) {
        ZooKeeperLeaseIssuer issuer = ZooKeeperLeaseIssuer.builder()
                .connectString(server.getConnectString()).root(root).tokenMode(mode).build();
        owned.add(issuer);
        return new LockContender(name, false, lock -> {
            Lease lease = acquired(issuer, lock);
            issuer.release(lease.leaseId()).toCompletableFuture().get(60, TimeUnit.SECONDS);
        });
    }

    static Lease acquired(LeaseIssuer issuer, String lock) throws Exception {
        return issuer.acquire(lock, TTL, WAIT).toCompletableFuture().get(120, TimeUnit.SECONDS)
                .orElseThrow(() -> new IllegalStateException("no lease on " + lock + " within " + WAIT));
    }

    private LockContender rawCreateDelete() {
        return new LockContender("raw Curator create+delete (EPHEMERAL_SEQUENTIAL)", false, lock -> {
            String path = curator.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath("/raw/" + lock + "/n-");
            curator.delete().forPath(path);
        });
    }

    private LockContender curatorMutex() {
        Map<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();
        return new LockContender("Curator InterProcessMutex", false, lock -> {
            // One mutex object per lock is shared by the workers: it is reentrant per thread, so
            // two threads on one object still exclude each other.
            InterProcessMutex mutex = mutexes.computeIfAbsent(lock, l -> new InterProcessMutex(curator, "/mutex/" + l));
            if (!mutex.acquire(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("InterProcessMutex " + lock + " not acquired within " + WAIT);
            }
            mutex.release();
        });
    }

    private LockContender hazelcastFencedLock() {
        HazelcastInstance member = hazelcast.get(0);
        return new LockContender("Hazelcast FencedLock (3 CP members)", false, lock -> {
            FencedLock fenced = member.getCPSubsystem().getLock(lock);
            fenced.lockAndGetFence();
            fenced.unlock();
        });
    }

    private void startHazelcast() throws Exception {
        int base = 15_701 + (int) (ProcessHandle.current().pid() % 1000) * 3;
        String cluster = "fencegate-bench-" + ProcessHandle.current().pid();
        List<CompletableFuture<HazelcastInstance>> starting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Config config = new Config();
            config.setClusterName(cluster);
            config.setProperty("hazelcast.logging.type", "slf4j");
            config.setProperty("hazelcast.phone.home.enabled", "false");
            config.getJetConfig().setEnabled(false);
            config.getNetworkConfig().setPort(base).setPortAutoIncrement(true).setPortCount(3);
            config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
            JoinConfig join = config.getNetworkConfig().getJoin();
            join.getMulticastConfig().setEnabled(false);
            join.getAutoDetectionConfig().setEnabled(false);
            for (int m = 0; m < 3; m++) {
                join.getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + (base + m));
            }
            // Three CP members: FencedLock runs on Raft, as in production (0 would be the unsafe mode).
            config.getCPSubsystemConfig().setCPMemberCount(3);
            starting.add(CompletableFuture.supplyAsync(() -> Hazelcast.newHazelcastInstance(config)));
        }
        for (CompletableFuture<HazelcastInstance> f : starting) {
            hazelcast.add(f.get(120, TimeUnit.SECONDS));
        }
        // The CP subsystem forms after all three joined; the first lock call waits for it.
        hazelcast.get(0).getCPSubsystem().getLock("warm-up").lock();
        hazelcast.get(0).getCPSubsystem().getLock("warm-up").unlock();
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : owned) {
            c.close();
        }
        hazelcast.forEach(HazelcastInstance::shutdown);
        curator.close();
        server.close();
    }
}
