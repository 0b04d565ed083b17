package io.fencegate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.testing.GatewayProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second {@code ./fencegate serve} on the data directory of a running gateway, as a user would
 * start it by mistake: it must fail before it opens anything, saying which directory and which
 * process hold it, and leave the directory as it found it, so the running gateway's tokens keep
 * growing across its next restart.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DataDirClaimIT {
    private static final Map<String, String> JVM_FLAGS = Map.of("FENCEGATE_JAVA_OPTS", "-XX:TieredStopAtLevel=1 -Xmx256m");
    private static final String LOCK = "main/orders/42";

    @TempDir
    Path work;

    @Test
    void aSecondServeOnALiveDataDirFailsFirstTouchesNothingAndTokensKeepGrowing() throws Exception {
        List<Long> seen = new ArrayList<>();
        Map<String, String> before;
        Map<String, String> after = Map.of();
        String secondOutput;
        int secondExit;
        long firstPid;
        try (GatewayProcess first = FencegateScript.launch(work, JVM_FLAGS, "serve", "--port", "0", "--data", "data")
                .awaitReady(90)) {
            firstPid = first.pid();
            FencegateClient client = client(first);
            takeLeases(client, 20, seen);
            before = tree(work.resolve("data"));
            secondOutput = "";
            secondExit = 0;
            // The user tries twice; the live gateway goes on granting after each refused start.
            for (int attempt = 0; attempt < 2; attempt++) {
                try (GatewayProcess second = FencegateScript.launch(work, JVM_FLAGS, "serve", "--port", "0", "--data", "data")) {
                    secondExit = second.exit(90);
                    secondOutput = second.output();
                }
                if (attempt == 0) {
                    after = tree(work.resolve("data"));
                }
                takeLeases(client, 20, seen);
            }
            first.terminate();
            assertThat(first.exit(60)).as(first.output()).isEqualTo(143);
        }
        long next;
        try (GatewayProcess restarted = FencegateScript.launch(work, JVM_FLAGS, "serve", "--port", "0", "--data", "data")
                .awaitReady(90)) {
            Lease lease = client(restarted).acquire(LOCK, Duration.ofSeconds(30), Duration.ofSeconds(30)).orElseThrow();
            next = lease.token();
        }
        long max = Collections.max(seen);
        assertThat(next).as("the first token after the restart (tokens before: %s)", seen).isGreaterThan(max);
        assertThat(secondExit).as(secondOutput).isEqualTo(2);
        Path data = work.resolve("data").toRealPath();
        assertThat(secondOutput)
                .contains("fencegate: cannot start: data directory " + data + " is in use by another fencegate")
                .contains("pid " + firstPid);
        assertThat(after).as("the data directory after the refused start").isEqualTo(before);
    }

    /**
     * Every lock file of the live gateway is deleted (a clean-up script, a careless {@code rm}),
     * then a second serve starts on the directory. The live gateway takes its lock files back (or,
     * had the newcomer been first, would stop its ZooKeeper before the newcomer read it): the
     * second serve is refused, and tokens keep growing across the first one's restart.
     */
    @Test
    void deletingEveryLockFileOfALiveGatewayLetsNoSecondServeIn() throws Exception {
        List<Long> seen = new ArrayList<>();
        String secondOutput;
        int secondExit;
        try (GatewayProcess first = FencegateScript.launch(work, JVM_FLAGS, "serve", "--port", "0", "--data", "data")
                .awaitReady(90)) {
            FencegateClient client = client(first);
            takeLeases(client, 20, seen);
            List<Path> locks;
            try (Stream<Path> all = Files.walk(work.resolve("data"))) {
                locks = all.filter(p -> p.getFileName().toString().endsWith(".fencegate.lock")).toList();
            }
            assertThat(locks).hasSize(3); // the data directory, its ZooKeeper's and its H2 database's
            for (Path lock : locks) {
                Files.delete(lock);
            }
            try (GatewayProcess second = FencegateScript.launch(work, JVM_FLAGS, "serve", "--port", "0", "--data", "data")) {
                secondExit = second.exit(90);
                secondOutput = second.output();
            }
            takeLeases(client, 20, seen);
            first.terminate();
            assertThat(first.exit(60)).as(first.output()).isEqualTo(143);
        }
        long next;
        try (GatewayProcess restarted = FencegateScript.launch(work, JVM_FLAGS, "serve", "--port", "0", "--data", "data")
                .awaitReady(90)) {
            next = client(restarted).acquire(LOCK, Duration.ofSeconds(30), Duration.ofSeconds(30)).orElseThrow().token();
        }
        assertThat(secondExit).as(secondOutput).isEqualTo(2);
        assertThat(secondOutput).contains("is in use by another fencegate");
        assertThat(next).as("the first token after the restart (tokens before: %s)", seen).isGreaterThan(Collections.max(seen));
    }

    private static FencegateClient client(GatewayProcess gw) {
        return FencegateClient.builder(gw.uri()).timeout(Duration.ofSeconds(10)).build();
    }

    private static void takeLeases(FencegateClient client, int count, List<Long> tokens) {
        for (int i = 0; i < count; i++) {
            Lease lease = client.acquire(LOCK, Duration.ofSeconds(30), Duration.ofSeconds(10)).orElseThrow();
            tokens.add(lease.token());
            assertThat(client.release(lease.leaseId())).isTrue();
        }
    }

    /** Every file and directory under {@code root}: relative path to a SHA-256 of its bytes ("dir" for a directory). */
    private static Map<String, String> tree(Path root) throws Exception {
        Map<String, String> tree = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                String digest = Files.isDirectory(p) ? "dir"
                        : HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
                tree.put(root.relativize(p).toString(), digest);
            }
        }
        return tree;
    }
}
