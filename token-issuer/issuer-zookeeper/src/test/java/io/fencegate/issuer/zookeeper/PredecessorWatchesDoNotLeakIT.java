package io.fencegate.issuer.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.server.command.FourLetterCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A waiter watches its predecessor. If it set an exists-watch on a predecessor that was already
 * gone, ZooKeeper would keep that watch (and the client the waiter it points to) for the whole
 * session: a gateway running for weeks would pile them up. After many contended acquisitions and
 * every lease ended, the server holds no watch under its root.
 */
@Timeout(120)
class PredecessorWatchesDoNotLeakIT {
    private static final String WHITELIST = "zookeeper.4lw.commands.whitelist";
    private static TestingServer server;
    private static String previousWhitelist;

    @BeforeAll
    static void startServerAnsweringWchs() throws Exception {
        // The whitelist is read once per JVM: set it, and make ZooKeeper read it again.
        previousWhitelist = System.setProperty(WHITELIST, "wchp,srvr,ruok");
        FourLetterCommands.resetWhiteList();
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
        if (previousWhitelist == null) {
            System.clearProperty(WHITELIST);
        } else {
            System.setProperty(WHITELIST, previousWhitelist);
        }
        FourLetterCommands.resetWhiteList();
    }

    @Test
    void noPredecessorWatchOutlivesTheAcquisitionsThatSetIt() throws Exception {
        String root = "/fencegate-watch-" + UUID.randomUUID().toString().substring(0, 8);
        try (LeaseIssuer first = issuer(root); LeaseIssuer second = issuer(root)) {
            assertThat(watchesUnder(root)).as("watches before").isZero();
            for (int round = 0; round < 20; round++) {
                // 24 contenders on 2 locks through 2 sessions; half give up after a short wait, so
                // predecessors vanish in bursts, often between a waiter's list and its watch.
                List<CompletableFuture<Void>> contenders = new ArrayList<>();
                for (int i = 0; i < 24; i++) {
                    LeaseIssuer issuer = i % 2 == 0 ? first : second;
                    String lock = "orders/" + (i % 4 < 2 ? "a" : "b");
                    Duration wait = Duration.ofMillis(i % 3 == 0 ? 30 : 5_000);
                    contenders.add(issuer.acquire(lock, Duration.ofSeconds(10), wait).toCompletableFuture()
                            .thenCompose(lease -> release(issuer, lease)));
                }
                CompletableFuture.allOf(contenders.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            }
            // Nothing is held or queued now: every watch must have fired or never been set.
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(watchesUnder(root)).as("watches left on the server").isZero());
        }
    }

    @Test
    void queuedWaitersEachWatchOnlyTheirPredecessor() throws Exception {
        String root = "/fencegate-watch-" + UUID.randomUUID().toString().substring(0, 8);
        try (LeaseIssuer issuer = issuer(root)) {
            Lease holder = issuer.acquire("queue", Duration.ofSeconds(30), Duration.ZERO)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
            int held = watchesUnder(root);
            int waiters = 16;
            List<CompletableFuture<Void>> queued = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                queued.add(issuer.acquire("queue", Duration.ofSeconds(30), Duration.ofSeconds(60)).toCompletableFuture()
                        .thenCompose(lease -> release(issuer, lease)));
            }
            // One watch per waiter, each on its own predecessor: a release wakes one waiter, no herd.
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(watchersByPath(root).values().stream().mapToInt(i -> i).sum())
                            .isEqualTo(held + waiters));
            assertThat(watchersByPath(root)).as("watchers per watched node").allSatisfy((path, n) -> assertThat(n).isOne());
            issuer.release(holder.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
            CompletableFuture.allOf(queued.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void waitersThatGiveUpLeaveNoWatchWhileTheHolderKeepsTheLock() throws Exception {
        String root = "/fencegate-watch-" + UUID.randomUUID().toString().substring(0, 8);
        try (LeaseIssuer issuer = issuer(root)) {
            Lease holder = issuer.acquire("held", Duration.ofSeconds(60), Duration.ZERO)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
            int held = watchesUnder(root);
            List<CompletableFuture<Optional<Lease>>> waiters = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                waiters.add(issuer.acquire("held", Duration.ofSeconds(10), Duration.ofMillis(300)).toCompletableFuture());
            }
            for (CompletableFuture<Optional<Lease>> waiter : waiters) {
                assertThat(waiter.get(30, TimeUnit.SECONDS)).as("gave up: the lock is held").isEmpty();
            }
            // The holder's node has not changed, so a watch on it would still be there.
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(watchesUnder(root)).as("watches left by waiters that gave up")
                            .isEqualTo(held));
            issuer.release(holder.leaseId()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private static CompletableFuture<Void> release(LeaseIssuer issuer, Optional<Lease> lease) {
        return lease.isEmpty() ? CompletableFuture.completedFuture(null)
                : issuer.release(lease.get().leaseId()).toCompletableFuture().thenAccept(released -> { });
    }

    private static LeaseIssuer issuer(String root) {
        return ZooKeeperLeaseIssuer.builder().connectString(server.getConnectString()).root(root)
                .forgetIdleLocksAfter(Duration.ZERO).build();
    }

    /**
     * Watches the server holds on paths under {@code root}, from the {@code wchp} four-letter word
     * (each watched path on a line, then one indented line per watching session). Other paths are
     * not ours: Curator's ensemble tracker watches {@code /zookeeper/config} in every session.
     */
    private static int watchesUnder(String root) throws Exception {
        return watchersByPath(root).values().stream().mapToInt(i -> i).sum();
    }

    /** Per watched path under {@code root}, how many sessions watch it (see {@link #watchesUnder}). */
    private static java.util.Map<String, Integer> watchersByPath(String root) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.getPort())) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write("wchp".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            if (answer.contains("not executed") || answer.contains("not in the whitelist")) {
                throw new AssertionError("wchp refused: " + answer);
            }
            java.util.Map<String, Integer> watches = new java.util.TreeMap<>();
            String path = null;
            for (String line : answer.split("\n")) {
                if (line.startsWith("/")) {
                    path = line.startsWith(root + "/") ? line.trim() : null;
                } else if (path != null && !line.isBlank()) {
                    watches.merge(path, 1, Integer::sum);
                }
            }
            return watches;
        }
    }
}
