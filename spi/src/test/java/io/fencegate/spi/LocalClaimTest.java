package io.fencegate.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
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
 * One holder of local state at a time, across processes and within one, also when the lock file is
 * deleted under a live holder: the holder takes it back, or, if a newcomer got there first, the
 * holder gives up before the newcomer's claim returns.
 */
@Timeout(60)
class LocalClaimTest {
    @TempDir
    Path tmp;

    private Process child;
    private final List<String> childSaid = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopChild() throws Exception {
        if (child != null) {
            child.getOutputStream().close();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static ExclusivePath dir(Path p) {
        return ExclusivePath.directory(null, "data directory", p);
    }

    /** This JVM's class path, with the main classes surefire may have put on the module path. */
    private static String classPath() {
        String modules = System.getProperty("jdk.module.path");
        String cp = System.getProperty("java.class.path");
        return modules == null || modules.isEmpty() ? cp : cp + java.io.File.pathSeparator + modules;
    }

    /** Starts {@link ClaimHolder} and waits for its first line. */
    private void startChild(String mode, Path path, String ready) throws Exception {
        child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto",
                "-cp", classPath(), ClaimHolder.class.getName(), mode, path.toString())
                .redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        Thread reader = new Thread(() -> out.lines().forEach(childSaid::add), "claim-holder-output");
        reader.setDaemon(true);
        reader.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> childSaid.contains(ready) || !child.isAlive());
        assertThat(childSaid).as("child output").contains(ready);
    }

    @Test
    void aSecondClaimInThisProcessIsRefusedNamingThePathUntilTheFirstIsReleased() throws Exception {
        Path data = tmp.resolve("data");
        LocalClaim first = LocalClaim.take(dir(data), why -> { });
        assertThatThrownBy(() -> LocalClaim.take(dir(data), why -> { }))
                .isInstanceOf(ClaimRefusedException.class)
                .hasMessageStartingWith("data directory " + data.toRealPath() + " is in use by another fencegate (pid "
                        + ProcessHandle.current().pid())
                .hasMessageContaining("this very process");
        assertThatThrownBy(() -> LocalClaim.check(dir(data))).isInstanceOf(ClaimRefusedException.class);
        first.close();
        LocalClaim.take(dir(data), why -> { }).close();
    }

    @Test
    void aClaimHeldByAnotherProcessIsRefusedNamingItsPid() throws Exception {
        Path data = tmp.resolve("data");
        startChild("claim", data, "claimed");
        assertThatThrownBy(() -> LocalClaim.take(dir(data), why -> { }))
                .isInstanceOf(ClaimRefusedException.class)
                .hasMessageStartingWith("data directory " + data.toRealPath() + " is in use by another fencegate (pid "
                        + child.pid() + ", started ");
        assertThatThrownBy(() -> LocalClaim.check(dir(data)))
                .hasMessageContaining("(pid " + child.pid() + ", started ");
    }

    @Test
    void aDeletedLockFileIsTakenBackByItsHolderSoTheNextClaimIsStillRefused() throws Exception {
        Path data = tmp.resolve("data");
        startChild("claim", data, "claimed");
        Path lockFile = data.resolve(LocalClaim.LOCK_NAME);
        Object before = Files.readAttributes(lockFile, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        Files.delete(lockFile);
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(lockFile)
                && !Files.readAttributes(lockFile, java.nio.file.attribute.BasicFileAttributes.class).fileKey().equals(before));
        assertThatThrownBy(() -> LocalClaim.take(dir(data), why -> { }))
                .hasMessageContaining("(pid " + child.pid() + ", started ");
        assertThat(childSaid).noneMatch(l -> l.startsWith("lost"));
    }

    /**
     * The lock file is deleted and a newcomer creates its own at once, before the holder's next
     * check. Either the holder took it back first (the newcomer is refused) or the newcomer's
     * claim, beside existing data, returns only after the holder has said it lost its claim:
     * never two holders using the directory at once.
     */
    @Test
    void aNewcomerThatReplacesADeletedLockFileReturnsOnlyOnceTheHolderHasGivenUp() throws Exception {
        Path data = tmp.resolve("data");
        startChild("claim", data, "claimed");
        Files.writeString(data.resolve("snapshot"), "data the holder uses");
        Files.delete(data.resolve(LocalClaim.LOCK_NAME));
        LocalClaim mine;
        try {
            mine = LocalClaim.take(dir(data), why -> { });
        } catch (ClaimRefusedException takenBack) {
            assertThat(takenBack).hasMessageContaining("(pid " + child.pid() + ", started ");
            assertThat(childSaid).noneMatch(l -> l.startsWith("lost"));
            return;
        }
        Path real = data.toRealPath();
        try (mine) {
            assertThat(childSaid).anyMatch(l -> l.startsWith("lost: data directory " + real
                    + " is no longer claimed by this process: its lock file " + real.resolve(LocalClaim.LOCK_NAME)
                    + " was replaced, and is now held by pid " + ProcessHandle.current().pid()));
            assertThat(mine.isHeld()).isTrue();
        }
    }

    @Test
    void checkRefusesStateWhoseBackendHoldsItsOwnLockElsewhereAndCreatesNothing() throws Exception {
        Path db = Files.createDirectories(tmp.resolve("h2")).resolve("main");
        startChild("lock", tmp.resolve("h2/main.mv.db"), "locked");
        ExclusivePath h2 = ExclusivePath.file("url", "H2 database", db, "main.mv.db");
        assertThatThrownBy(() -> LocalClaim.check(h2))
                .isInstanceOf(ClaimRefusedException.class)
                .hasMessageStartingWith("H2 database " + db.getParent().toRealPath().resolve("main") + " is in use")
                .hasMessageContaining("a process that holds its own lock on " + tmp.resolve("h2/main.mv.db").toRealPath());
        assertThat(db.resolveSibling("main" + LocalClaim.LOCK_SUFFIX)).doesNotExist();
        LocalClaim.check(dir(tmp.resolve("missing")));
        assertThat(tmp.resolve("missing")).doesNotExist();
    }

    @Test
    void aLockFileLeftByADeadProcessIsTakenOverAndNamesTheNewHolder() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Files.writeString(data.resolve(LocalClaim.LOCK_NAME), "pid 999999999, started long ago\n");
        Files.writeString(data.resolve("snapshot"), "old data");
        long start = System.nanoTime();
        try (LocalClaim claim = LocalClaim.take(dir(data), why -> { })) {
            assertThat(Files.readString(data.resolve(LocalClaim.LOCK_NAME)))
                    .startsWith("pid " + ProcessHandle.current().pid() + ", started ");
        }
        // A lock file that was there means no grace wait: only a missing one beside data costs one.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LocalClaim.GRACE);
    }
}
