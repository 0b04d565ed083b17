package io.fencegate.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.spi.ExclusivePath;
import io.fencegate.spi.LocalClaim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's side of claims (the claim itself is {@code LocalClaimTest}'s, in fencegate-spi):
 * every path is checked before any is taken, a refusal names the key, and a refused start creates
 * nothing.
 */
@Timeout(60)
class LocalClaimsTest {
    @TempDir
    Path tmp;

    private static LocalClaims.Wanted wanted(String at, ExclusivePath p) {
        return new LocalClaims.Wanted(at, p);
    }

    @Test
    void aPathAnOwnerHoldsRefusesTheStartNamingItsKeyBeforeTheGatewayTakesAnything() throws Exception {
        Path data = tmp.resolve("data");
        Path zookeeper = tmp.resolve("elsewhere/zookeeper");
        ExclusivePath zk = ExclusivePath.directory("dataDir", "ZooKeeper data directory", zookeeper);
        try (LocalClaim owner = LocalClaim.take(zk, why -> { })) {
            assertThatThrownBy(() -> LocalClaims.claim(
                    List.of(wanted(null, ExclusivePath.directory(null, "data directory", data, "files"))),
                    List.of(wanted("issuer.dataDir", zk))))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("issuer.dataDir: ZooKeeper data directory " + zookeeper.toRealPath()
                            + " is in use by another fencegate (pid " + ProcessHandle.current().pid());
            assertThat(data).doesNotExist();
        }
    }

    @Test
    void oneGatewayNamingItsOwnPathTwiceClaimsItOnceAndMakesItsSubdirectories() throws Exception {
        Path data = tmp.resolve("data");
        ExclusivePath dir = ExclusivePath.directory(null, "data directory", data, "files");
        try (LocalClaims claims = LocalClaims.claim(List.of(wanted(null, dir), wanted(null, dir)), List.of())) {
            assertThat(data.resolve("files")).isDirectory();
            assertThat(Files.readString(data.resolve(LocalClaims.LOCK_NAME)))
                    .startsWith("pid " + ProcessHandle.current().pid() + ", started ");
            assertThatThrownBy(() -> LocalClaims.claim(List.of(wanted(null, dir)), List.of()))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("data directory " + data.toRealPath() + " is in use by another fencegate");
        }
        LocalClaims.claim(List.of(wanted(null, dir)), List.of()).close();
    }
}
