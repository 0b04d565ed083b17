package io.fencegate.gateway.it;

import io.fencegate.client.FencegateClient;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.testing.GatewayProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.curator.test.TestingServer;

/**
 * Two gateways on one in-process ZooKeeper (sessions of 4 s): A as a child process, so a test can
 * SIGKILL it with its session open, and B in this JVM, to see what A's death does. A serves a
 * files store {@code docs}; {@code leasesYaml} (a {@code leases:} section, or empty) is A's only.
 */
final class KillableGatewayPair implements AutoCloseable {
    final GatewayProcess a;
    final GatewayHarness b;
    final FencegateClient viaA;
    private final TestingServer zookeeper;
    private final Path work;

    private KillableGatewayPair(Path work, TestingServer zookeeper, GatewayProcess a, GatewayHarness b) {
        this.work = work;
        this.zookeeper = zookeeper;
        this.a = a;
        this.b = b;
        this.viaA = FencegateClient.builder(a.uri()).timeout(Duration.ofSeconds(20)).build();
    }

    static KillableGatewayPair start(String name, String leasesYaml) throws Exception {
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), name);
        TestingServer zookeeper = new TestingServer(true);
        Path config = work.resolve("fencegate.yaml");
        Files.createDirectories(work.resolve("docs"));
        Files.writeString(config, """
                server: { port: 0 }
                issuer: { type: zookeeper, connectString: "%s", sessionTimeout: 4s, operationTimeout: 3s }
                %sstores:
                  docs: { type: files, dir: "%s" }
                """.formatted(zookeeper.getConnectString(), leasesYaml, work.resolve("docs")));
        LeaseIssuer issuerB = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString()).build();
        GatewayProcess a = GatewayProcess.start(work, "serve", "--config", config.toString());
        GatewayHarness b = null;
        try {
            b = new GatewayHarness(new GatewayOptions(), issuerB, List.of(), List.of(issuerB));
            a.awaitReady(90);
            return new KillableGatewayPair(work, zookeeper, a, b);
        } catch (Exception | Error e) {
            new KillableGatewayPair(work, zookeeper, a, b).close();
            throw e;
        }
    }

    @Override
    public void close() throws Exception {
        try (zookeeper; a) {
            if (b != null) {
                b.close();
            }
        } finally {
            LeaseEventsIT.deleteTree(work);
        }
    }
}
