package io.fencegate.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.spi.ExclusivePath;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Exclusive local state: one holder at a time, across processes and within one; a refused claim touches nothing. */
@Timeout(60)
class LocalClaimsTest {
    @TempDir
    Path tmp;

    private static LocalClaims claim(ExclusivePath... paths) {
        return LocalClaims.claim(java.util.Arrays.stream(paths).map(p -> new LocalClaims.Wanted(p.key(), p)).toList());
    }

    private static ExclusivePath dir(Path p) {
        return ExclusivePath.directory(null, "data directory", p);
    }

    @Test
    void aSecondClaimInThisProcessIsRefusedNamingThePathUntilTheFirstIsReleased() throws Exception {
        Path data = tmp.resolve("data");
        LocalClaims first = claim(dir(data));
        assertThatThrownBy(() -> claim(dir(data)))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("data directory " + data.toRealPath() + " is in use by another fencegate (pid "
                        + ProcessHandle.current().pid())
                .hasMessageContaining("this very process");
        first.close();
        claim(dir(data)).close();
    }

    @Test
    void aClaimHeldByAnotherProcessIsRefusedNamingItsPidAndTouchesNothing() throws Exception {
        Path data = tmp.resolve("data");
        Path zookeeper = tmp.resolve("elsewhere/zookeeper");
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ClaimHolder.class.getName(), data.toString())
                .redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("claimed");
            byte[] lockBefore = Files.readAllBytes(data.resolve(LocalClaims.LOCK_NAME));
            // The held path is tried first, so the missing directory is never created.
            ExclusivePath zk = ExclusivePath.directory("dataDir", "ZooKeeper data directory", zookeeper);
            assertThatThrownBy(() -> LocalClaims.claim(List.of(new LocalClaims.Wanted("issuer.dataDir", zk),
                    new LocalClaims.Wanted(null, dir(data)))))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("data directory " + data.toRealPath() + " is in use by another fencegate (pid "
                            + holder.pid() + ", started ");
            assertThat(tmp.resolve("elsewhere")).doesNotExist();
            assertThat(Files.readAllBytes(data.resolve(LocalClaims.LOCK_NAME))).isEqualTo(lockBefore);
            try (var files = Files.list(data)) {
                assertThat(files).containsExactly(data.resolve(LocalClaims.LOCK_NAME));
            }
        } finally {
            holder.getOutputStream().close();
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        // The holder is gone, its lock with it: the same claim now holds.
        claim(dir(data)).close();
    }

    @Test
    void aLockFileLeftByADeadProcessIsTakenOverAndNamesTheNewHolder() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Files.writeString(data.resolve(LocalClaims.LOCK_NAME), "pid 999999999, started long ago\n");
        try (LocalClaims claims = claim(dir(data))) {
            assertThat(Files.readString(data.resolve(LocalClaims.LOCK_NAME)))
                    .startsWith("pid " + ProcessHandle.current().pid() + ", started ");
        }
    }

    @Test
    void twoNamesOfOneDirectoryMeetOnOneClaim() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), data);
        try (LocalClaims claims = claim(dir(data))) {
            assertThatThrownBy(() -> claim(dir(link))).hasMessageStartingWith("data directory " + data.toRealPath());
        }
    }

    @Test
    void oneGatewayNamingOnePathTwiceClaimsItOnceAndMakesItsSubdirectories() throws Exception {
        Path data = tmp.resolve("data");
        Path h2 = data.resolve("h2/main");
        ExclusivePath db = ExclusivePath.file("url", "H2 database", h2);
        try (LocalClaims claims = claim(ExclusivePath.directory(null, "data directory", data, "files"), db, db)) {
            assertThat(data.resolve("files")).isDirectory();
            assertThat(data.resolve("h2/main" + LocalClaims.LOCK_SUFFIX)).isRegularFile();
            assertThatThrownBy(() -> claim(db)).hasMessageStartingWith("url: H2 database " + h2.getParent().toRealPath().resolve("main"));
        }
        claim(db).close();
    }
}
