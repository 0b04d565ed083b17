package io.fencegate.store.jdbc.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.spi.ClaimRefusedException;
import io.fencegate.spi.ExclusivePath;
import io.fencegate.spi.LocalClaim;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An H2 file database open in another process is refused by a gateway's check even when no lock
 * file of fencegate's is there (deleted, or the other process is not a gateway): the check tries
 * H2's own lock on the {@code .mv.db}, which cannot be deleted without the data.
 */
@Timeout(60)
class H2ClaimIT {
    @TempDir
    Path dir;

    @Test
    void anH2DatabaseOpenInAnotherProcessIsRefusedByItsOwnLockWithoutALockFile() throws Exception {
        Path db = dir.resolve("main");
        String url = "jdbc:h2:file:" + db;
        String cp = System.getProperty("java.class.path");
        String modules = System.getProperty("jdk.module.path");
        if (modules != null && !modules.isEmpty()) {
            cp += File.pathSeparator + modules;
        }
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto",
                "-cp", cp, H2Holder.class.getName(), url).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("open");
            List<ExclusivePath> paths = new JdbcStoreSettings(url, "sa", null, null, null, null, null, null).exclusivePaths();
            assertThat(paths).hasSize(1);
            assertThatThrownBy(() -> LocalClaim.check(paths.get(0)))
                    .isInstanceOf(ClaimRefusedException.class)
                    .hasMessageStartingWith("H2 database " + dir.toRealPath().resolve("main") + " is in use by another fencegate")
                    .hasMessageContaining("holds its own lock on " + dir.toRealPath().resolve("main.mv.db"));
            assertThat(dir.resolve("main" + LocalClaim.LOCK_SUFFIX)).doesNotExist();
        } finally {
            holder.getOutputStream().close();
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        LocalClaim.check(new JdbcStoreSettings(url, "sa", null, null, null, null, null, null).exclusivePaths().get(0));
    }
}
