package io.fencegate.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A MariaDB server of the test's own, in a folder given as a relative path (as `fencegate nemesis --out runs/x` gives it). */
@Timeout(240)
class MariaDbServerTest {

    @Test
    void startsInAFolderGivenAsARelativePath() throws Exception {
        Path relative = Path.of("target", "mariadb-" + UUID.randomUUID());
        assertThat(relative.isAbsolute()).isFalse();
        try (MariaDbServer server = MariaDbServer.start(relative);
             var c = DriverManager.getConnection(server.jdbcUrl(), server.user(), "");
             var rs = c.createStatement().executeQuery("SELECT 1")) {
            assertThat(rs.next()).isTrue();
        } finally {
            try (Stream<Path> all = Files.exists(relative) ? Files.walk(relative) : Stream.empty()) {
                all.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
