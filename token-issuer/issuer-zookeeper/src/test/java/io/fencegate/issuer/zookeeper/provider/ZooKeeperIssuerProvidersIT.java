package io.fencegate.issuer.zookeeper.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.spi.IssuerProvider;
import io.fencegate.issuer.spi.OpenedIssuer;
import io.fencegate.spi.ExclusivePath;
import io.fencegate.spi.InvalidSettingException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * This module's two issuer types as a server finds them: registered for {@link ServiceLoader},
 * each bound to its record; the embedded one starts a real server it hands over to be closed, and
 * its tokens keep growing when it is opened again on the same data directory.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperIssuerProvidersIT {
    @TempDir
    Path data;

    @Test
    void bothTypesAreRegisteredWithTheirRecords() {
        Map<String, Class<?>> types = ServiceLoader.load(IssuerProvider.class).stream()
                .map(ServiceLoader.Provider::get)
                .collect(Collectors.toMap(p -> p.issuerType().name(), p -> p.issuerType().settings()));
        assertThat(types).containsEntry("zookeeper", ZooKeeperIssuerConfig.class)
                .containsEntry("embedded-zookeeper", EmbeddedZooKeeperIssuerConfig.class);
    }

    @Test
    void theEmbeddedServerIsClaimedOpenedAndClosedThroughItsProvider() throws Exception {
        EmbeddedZooKeeperIssuerConfig settings = new EmbeddedZooKeeperIssuerConfig(data.resolve("zk").toString());
        settings.validate();
        assertThat(settings.exclusivePaths()).containsExactly(
                ExclusivePath.directory("dataDir", "ZooKeeper data directory", data.resolve("zk")));
        long first = acquireOnce(settings);
        long second = acquireOnce(settings);
        assertThat(second).as("zxids survive a restart on the same data directory").isGreaterThan(first);
    }

    /** Opens, takes one lease, closes the issuer and then what the provider registered (the server). */
    private static long acquireOnce(EmbeddedZooKeeperIssuerConfig settings) throws Exception {
        List<AutoCloseable> registered = new ArrayList<>();
        OpenedIssuer opened = new EmbeddedZooKeeperIssuerProvider().open(settings, registered::add);
        try {
            assertThat(opened.description()).startsWith("embedded ZooKeeper 127.0.0.1:");
            assertThat(registered).hasSize(1).first().isInstanceOf(EmbeddedZooKeeper.class);
            Lease lease = opened.issuer().acquire("providers/one", Duration.ofSeconds(30), Duration.ZERO)
                    .toCompletableFuture().get(30, TimeUnit.SECONDS).orElseThrow();
            return lease.token();
        } finally {
            opened.issuer().close();
            for (AutoCloseable r : registered) {
                r.close();
            }
        }
    }

    @Test
    void anEnsembleNobodyAnswersForIsRefusedByItsKey() {
        ZooKeeperIssuerConfig settings = new ZooKeeperIssuerConfig("127.0.0.1:1", null, null, null, null, null, null);
        settings.validate();
        assertThatThrownBy(() -> new ZooKeeperIssuerProvider().open(settings, r -> { }))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> assertThat(e.key()).isEqualTo("connectString"))
                .hasMessage("cannot reach ZooKeeper at 127.0.0.1:1 (connection refused)");
        assertThatThrownBy(() -> new ZooKeeperIssuerConfig("127.0.0.1:2181", null, "random", null, null, null, null).validate())
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> assertThat(e.key()).isEqualTo("tokenMode"));
        assertThatThrownBy(() -> new ZooKeeperIssuerConfig("127.0.0.1:2181", null, null, null, null, null, 4096).validate())
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> assertThat(e.key()).isEqualTo("listingMaxBytes"));
    }
}
