package io.fencegate.gateway.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.testing.GatewayProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gateway killed with SIGKILL while a holder's lease and writes went through it: its ZooKeeper
 * session expires, the lock passes through the other gateway with a higher token, and the old
 * holder, wherever it turns, can no longer write.
 */
class KilledGatewayIT {

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aKilledGatewaysLeasesEndAndItsHoldersAreFencedOut() throws Exception {
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "killed-gateway");
        try (TestingServer zookeeper = new TestingServer(true);
                TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            Path config = work.resolve("fencegate.yaml");
            Files.writeString(config, """
                    server: { port: 0 }
                    issuer: { type: zookeeper, connectString: "%s", sessionTimeout: 6s, operationTimeout: 5s }
                    stores:
                      shop: { type: postgres, database: test, schema: %s, user: postgres }
                    """.formatted(zookeeper.getConnectString(), db.name));
            try (GatewayProcess a = GatewayProcess.start(work, "serve", "--config", config.toString());
                    GatewayProcess b = GatewayProcess.start(work, "serve", "--config", config.toString())) {
                FencegateClient viaA = client(a.awaitReady(90));
                FencegateClient viaB = client(b.awaitReady(90));

                Lease old = viaA.acquire("shop/stock", Duration.ofSeconds(60), Duration.ZERO).orElseThrow();
                assertThat(viaA.get("shop", "stock", old.token())).isInstanceOf(ReadOutcome.NotFound.class);
                assertThat(viaA.put("shop", "stock", old.token(), "1".getBytes(UTF_8)).applied()).isTrue();

                a.kill();
                assertThat(a.exit(30)).as("killed, not stopped").isNotZero();

                // The lease lived in A's ZooKeeper session; it ends when the session expires.
                Lease next = viaB.acquire("shop/stock", Duration.ofSeconds(60), Duration.ofSeconds(40)).orElseThrow();
                assertThat(next.token()).isGreaterThan(old.token());
                ReadOutcome read = viaB.get("shop", "stock", next.token());
                assertThat(((ReadOutcome.Value) read).bytes()).asString(UTF_8).isEqualTo("1");
                assertThat(viaB.put("shop", "stock", next.token(), "2".getBytes(UTF_8)).applied()).isTrue();

                assertThat(viaB.put("shop", "stock", old.token(), "stale".getBytes(UTF_8))).isInstanceOf(Stale.class);
                assertThat(viaB.get("shop", "stock", old.token())).isInstanceOf(Stale.class);
                assertThat(viaB.renew(old.leaseId())).as("the old lease is gone").isEmpty();
                assertThat(((ReadOutcome.Value) viaB.get("shop", "stock")).bytes()).asString(UTF_8).isEqualTo("2");
                assertThat(viaB.release(next.leaseId())).isTrue();
            }
        } finally {
            try (var all = Files.walk(work)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static FencegateClient client(GatewayProcess gateway) {
        return FencegateClient.builder(gateway.uri()).timeout(Duration.ofSeconds(60)).build();
    }
}
