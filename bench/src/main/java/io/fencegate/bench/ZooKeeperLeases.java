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
import java.util.concurrent.ExecutorService;
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
 * One in-process ZooKeeper ({@code TestingServer}, which fsyncs its log) serves all of them. Each
 * runs uncontended in both call shapes (blocking threads; async chains in flight), see {@link LeaseShapes}.
 */
final class ZooKeeperLeases implements AutoCloseable {
    static final String SECTION = "Leases: ZooKeeper";
    static final String ZXID = "fencegate ZooKeeper (zxid)";
    static final String RAW = "raw Curator create+delete (EPHEMERAL_SEQUENTIAL)";
    static final String MUTEX = "Curator InterProcessMutex";
    static final String HAZELCAST = "Hazelcast FencedLock (3 CP members)";
    private static final Duration TTL = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final TestingServer server;
    private final CuratorFramework curator;
    private final List<HazelcastInstance> hazelcast = new ArrayList<>();
    private final List<AutoCloseable> owned = new ArrayList<>();
    /** The async shape of the locks whose API only blocks: one thread per slot. */
    private final ExecutorService blockingPool = LeaseShapes.pool("zk-blocking-api");

    ZooKeeperLeases() throws Exception {
        server = new TestingServer(true);
        curator = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryNTimes(3, 100));
        curator.start();
        curator.blockUntilConnected(30, TimeUnit.SECONDS);
        startHazelcast();
    }

    List<Scenario> scenarios() {
        List<Scenario> scenarios = new ArrayList<>(LeaseShapes.all(SECTION, contenders()));
        ZooKeeperLeaseIssuer multi = ZooKeeperLeaseIssuer.builder().client(curator).root("/fg-multi").tokenMode(TokenMode.ZXID).build();
        owned.add(multi);
        scenarios.addAll(MultiLockPairs.scenarios("ZooKeeper (zxid)", multi));
        return scenarios;
    }

    /** Every contender, fencegate's zxid mode first. The issuers share {@link #curator()}'s session. */
    List<LeaseShapes> contenders() {
        return List.of(
                issuer(ZXID, TokenMode.ZXID, "/fg-zxid"),
                issuer("fencegate ZooKeeper (cversion)", TokenMode.CVERSION, "/fg-cversion"),
                rawCreateDelete(),
                curatorMutex(),
                hazelcastFencedLock());
    }

    CuratorFramework curator() {
        return curator;
    }

    List<HazelcastInstance> hazelcast() {
        return hazelcast;
    }

    private LeaseShapes issuer(String name, TokenMode mode, String root) {
        ZooKeeperLeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().client(curator).root(root).tokenMode(mode).build();
        owned.add(issuer);
        return fencegate(name, issuer);
    }

    /** A fencegate issuer in both shapes: its API is asynchronous; the blocking shape waits on each call. */
    static LeaseShapes fencegate(String name, LeaseIssuer issuer) {
        return new LeaseShapes(name, lock -> {
            Lease lease = acquired(issuer, lock);
            if (!issuer.release(lease.leaseId()).toCompletableFuture().get(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("lease on " + lock + " was gone at release");
            }
        }, lock -> issuer.acquire(lock, TTL, WAIT).thenCompose(lease -> issuer.release(lease
                .orElseThrow(() -> new IllegalStateException("no lease on " + lock + " within " + WAIT)).leaseId())));
    }

    static Lease acquired(LeaseIssuer issuer, String lock) throws Exception {
        return issuer.acquire(lock, TTL, WAIT).toCompletableFuture().get(120, TimeUnit.SECONDS)
                .orElseThrow(() -> new IllegalStateException("no lease on " + lock + " within " + WAIT));
    }

    private LeaseShapes rawCreateDelete() {
        return new LeaseShapes(RAW, lock -> {
            String path = curator.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath("/raw/" + lock + "/n-");
            curator.delete().forPath(path);
        }, lock -> {
            // Curator's background calls: the create's answer sends the delete from Curator's event thread.
            CompletableFuture<Void> done = new CompletableFuture<>();
            try {
                curator.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                        .inBackground((client, created) -> {
                            if (created.getResultCode() != 0) {
                                done.completeExceptionally(new IllegalStateException("create: " + created.getResultCode()));
                                return;
                            }
                            client.delete().inBackground((c, deleted) -> {
                                if (deleted.getResultCode() != 0) {
                                    done.completeExceptionally(new IllegalStateException("delete: " + deleted.getResultCode()));
                                } else {
                                    done.complete(null);
                                }
                            }).forPath(created.getName());
                        }).forPath("/raw/" + lock + "/n-");
            } catch (Exception e) {
                done.completeExceptionally(e);
            }
            return done;
        });
    }

    private LeaseShapes curatorMutex() {
        Map<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();
        return LeaseShapes.blockingOnly(MUTEX, lock -> {
            // One mutex object per lock is shared by the workers: it is reentrant per thread, so
            // two threads on one object still exclude each other.
            InterProcessMutex mutex = mutexes.computeIfAbsent(lock, l -> new InterProcessMutex(curator, "/mutex/" + l));
            if (!mutex.acquire(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("InterProcessMutex " + lock + " not acquired within " + WAIT);
            }
            mutex.release();
        }, blockingPool);
    }

    private LeaseShapes hazelcastFencedLock() {
        HazelcastInstance member = hazelcast.get(0);
        // FencedLock is owned by the calling thread (and its CP session): no async API.
        return LeaseShapes.blockingOnly(HAZELCAST, lock -> {
            FencedLock fenced = member.getCPSubsystem().getLock(lock);
            fenced.lockAndGetFence();
            fenced.unlock();
        }, blockingPool);
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
        blockingPool.shutdownNow();
        hazelcast.forEach(HazelcastInstance::shutdown);
        curator.close();
        server.close();
    }
}
