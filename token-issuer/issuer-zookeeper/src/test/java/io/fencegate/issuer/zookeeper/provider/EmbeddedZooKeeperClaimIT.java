package io.fencegate.issuer.zookeeper.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded ZooKeeper claims its data directory itself, whatever calls it: a second
 * {@link EmbeddedZooKeeper#start} on a live directory is refused in this process and in another,
 * also after the live server's lock file was deleted, so two servers never write one history.
 */
@Timeout(120)
class EmbeddedZooKeeperClaimIT {
    private static final String LOCK_FILE = ".fencegate.lock";

    @TempDir
    Path tmp;

    private Process child;
    private final List<String> childSaid = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopChild() throws Exception {
        if (child != null) {
            child.getOutputStream().close();
            if (!child.waitFor(30, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
    }

    /** A plain Java program in another process calling {@code EmbeddedZooKeeper.start(dir)}; answers its first line. */
    private String startInAnotherProcess(Path dir) {
        String cp = System.getProperty("java.class.path");
        String modules = System.getProperty("jdk.module.path");
        if (modules != null && !modules.isEmpty()) {
            cp += File.pathSeparator + modules;
        }
        try {
            child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto",
                    "-XX:TieredStopAtLevel=1", "-cp", cp, ZooKeeperStarter.class.getName(), dir.toString())
                    .redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        Thread reader = new Thread(() -> out.lines().forEach(childSaid::add), "zookeeper-starter-output");
        reader.setDaemon(true);
        reader.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> answer() != null || !child.isAlive());
        return answer();
    }

    private String answer() {
        return childSaid.stream().filter(l -> l.equals("started") || l.startsWith("refused: ")).findFirst().orElse(null);
    }

    private static boolean serves(EmbeddedZooKeeper zk) {
        String[] hostPort = zk.connectString().split(":");
        try (Socket s = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
            s.getOutputStream().write("ruok".getBytes(StandardCharsets.US_ASCII));
            return s.getInputStream().read() >= 0;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void aSecondStartOnALiveDirectoryInThisProcessIsRefusedNamingTheDirectory() throws Exception {
        Path dir = tmp.resolve("zookeeper");
        try (EmbeddedZooKeeper first = EmbeddedZooKeeper.start(dir)) {
            assertThatThrownBy(() -> EmbeddedZooKeeper.start(dir).close())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("ZooKeeper data directory " + dir.toRealPath()
                            + " is in use by another fencegate (pid " + ProcessHandle.current().pid());
            assertThat(serves(first)).isTrue();
        }
        EmbeddedZooKeeper.start(dir).close(); // released with the first
    }

    @Test
    void aStartOnALiveDirectoryInAnotherProcessIsRefusedNamingThisOne() throws Exception {
        Path dir = tmp.resolve("zookeeper");
        try (EmbeddedZooKeeper first = EmbeddedZooKeeper.start(dir)) {
            assertThat(startInAnotherProcess(dir)).startsWith("refused: ZooKeeper data directory " + dir.toRealPath()
                    + " is in use by another fencegate (pid " + ProcessHandle.current().pid() + ", started ");
            assertThat(serves(first)).isTrue();
        }
    }

    /**
     * The live server's lock file is deleted, then another process starts a server on the
     * directory. The live one takes its lock file back (the newcomer is refused); had the newcomer
     * been first, the live one would have stopped before the newcomer started.
     */
    @Test
    void deletingTheLockFileOfALiveServerLetsNoSecondServerStartBesideIt() throws Exception {
        Path dir = tmp.resolve("zookeeper");
        try (EmbeddedZooKeeper first = EmbeddedZooKeeper.start(dir)) {
            Files.delete(dir.resolve(LOCK_FILE));
            String answer = startInAnotherProcess(dir);
            if (answer.equals("started")) {
                assertThat(serves(first)).as("the first server still serves beside the second").isFalse();
            } else {
                assertThat(answer).startsWith("refused: ZooKeeper data directory " + dir.toRealPath()
                        + " is in use by another fencegate (pid " + ProcessHandle.current().pid());
                assertThat(serves(first)).isTrue();
            }
        }
    }
}
