package io.fencegate.gateway.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.Transaction;
import io.fencegate.client.TransactionOutcome;
import io.fencegate.testing.GatewayProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gateway killed with SIGKILL while it runs transactions back to back: each transaction writes
 * the same round number into every item, so whatever moment the kill hits (request half read,
 * statements half sent, commit in flight), the database must hold one round in all of them, and
 * that round is the last one acknowledged or the one in flight, never an older one.
 */
class TransactionCrashIT {
    private static final int ITEMS = 12;
    private static final int VALUE_BYTES = 16 * 1024;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aGatewayKilledMidTransactionLeavesAllOfItOrNone() throws Exception {
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "tx-crash");
        try (TestingServer zookeeper = new TestingServer(true);
                TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES)) {
            Path config = work.resolve("fencegate.yaml");
            // One lock for the store and the same-lease rule: one lease writes every round, so the
            // gateway spends its time in transactions rather than in acquires when the kill comes.
            Files.writeString(config, """
                    server: { port: 0 }
                    issuer: { type: zookeeper, connectString: "%s", sessionTimeout: 4s, operationTimeout: 5s }
                    stores:
                      shop: { type: postgres, database: test, schema: %s, user: postgres, lock: shop-lock, rule: same-lease }
                    """.formatted(zookeeper.getConnectString(), db.name));
            int killedInFlight = 0;
            for (int life = 0; life < 2; life++) {
                try (GatewayProcess gateway = GatewayProcess.start(work, "serve", "--config", config.toString())) {
                    FencegateClient client = FencegateClient.builder(gateway.awaitReady(90).uri())
                            .timeout(Duration.ofSeconds(30)).build();
                    Lease lease = client.acquire("shop-lock", Duration.ofSeconds(60), Duration.ofSeconds(30)).orElseThrow();
                    long first = life * 1_000_000L;
                    AtomicLong acknowledged = new AtomicLong(-1);
                    AtomicLong inFlight = new AtomicLong(-1);
                    Thread writer = new Thread(() -> {
                        for (long round = first; ; round++) {
                            Transaction tx = client.transaction("shop");
                            for (int i = 0; i < ITEMS; i++) {
                                tx.put("item-" + i, lease.token(), value(round));
                            }
                            inFlight.set(round);
                            try {
                                TransactionOutcome outcome = tx.commit();
                                assertThat(outcome.committed()).isTrue();
                            } catch (RuntimeException killed) {
                                return; // the gateway died under this one
                            }
                            acknowledged.set(round);
                        }
                    }, "tx-writer");
                    writer.start();
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (acknowledged.get() < first + 3 && System.nanoTime() < until) {
                        Thread.sleep(10);
                    }
                    Thread.sleep(ThreadLocalRandom.current().nextLong(0, 200));
                    gateway.kill();
                    assertThat(gateway.exit(30)).as("killed, not stopped").isNotZero();
                    writer.join(TimeUnit.SECONDS.toMillis(60));
                    assertThat(writer.isAlive()).isFalse();
                    if (inFlight.get() != acknowledged.get()) {
                        killedInFlight++;
                    }
                    long stored = oneRoundInEveryItem(db);
                    assertThat(stored).as("the round every item holds").isIn(acknowledged.get(), inFlight.get());
                }
            }
            assertThat(killedInFlight).as("kills that hit a transaction in flight").isPositive();
        } finally {
            try (var all = Files.walk(work)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static byte[] value(long round) {
        String head = "round-" + round + ";";
        return (head + "x".repeat(VALUE_BYTES - head.length())).getBytes(UTF_8);
    }

    /** The round all items hold, read straight from the database; fails if they hold different ones. */
    private static long oneRoundInEveryItem(TestDatabases db) throws Exception {
        Set<String> rounds = new HashSet<>();
        int rows = 0;
        try (Connection c = DriverManager.getConnection(db.url(), db.user(), "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT resource, val FROM fencegate_item WHERE resource LIKE 'item-%'")) {
            while (rs.next()) {
                rows++;
                String text = new String(rs.getBytes(2), UTF_8);
                rounds.add(text.substring(0, text.indexOf(';')));
            }
        }
        assertThat(rows).as("items stored").isEqualTo(ITEMS);
        assertThat(rounds).as("rounds held by the items: all or nothing").hasSize(1);
        return Long.parseLong(rounds.iterator().next().substring("round-".length()));
    }
}
