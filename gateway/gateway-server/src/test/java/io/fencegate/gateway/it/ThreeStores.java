package io.fencegate.gateway.it;

import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.GuardRule;
import io.fencegate.store.files.FilesGuardedStore;
import io.fencegate.store.postgres.PgGuardedStore;
import io.fencegate.store.postgres.PgStoreOptions;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;

/**
 * A gateway in this JVM with one store of each kind, each strict: {@code pg} (the reactive store on
 * the real Postgres), {@code maria} (the JDBC store on the real MariaDB) and {@code files} (a
 * directory of its own), with leases from an in-process ZooKeeper. Each database is a schema or
 * database of its own; closing the harness drops them and deletes the directory.
 */
final class ThreeStores {

    private ThreeStores() {}

    static GatewayHarness gateway(String folderPrefix, GatewayOptions options) throws Exception {
        TestingServer zookeeper = new TestingServer(true);
        TestDatabases postgres = TestDatabases.create(TestDatabases.Kind.POSTGRES);
        TestDatabases mariadb = TestDatabases.create(TestDatabases.Kind.MARIADB);
        Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), folderPrefix);
        AutoCloseable deleteDir = () -> {
            try (var walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        };
        var issuer = ZooKeeperLeaseIssuer.builder().connectString(zookeeper.getConnectString())
                .operationTimeout(Duration.ofSeconds(15)).build();
        postgres.store(GuardRule.STRICT).close(); // opening it migrates the schema
        Vertx pgVertx = Vertx.vertx();
        var pg = PgGuardedStore.open(pgVertx, new PgStoreOptions().database("test").schema(postgres.name).name(postgres.name)
                .poolSize(4).connectTimeout(Duration.ofSeconds(10)).operationTimeout(Duration.ofSeconds(20)));
        AutoCloseable closePgVertx = () -> pgVertx.close().await(10, TimeUnit.SECONDS);
        var maria = mariadb.store(GuardRule.STRICT);
        var files = FilesGuardedStore.open(dir, GuardRule.STRICT);
        // Closed in reverse: the stores, the issuer, the databases, ZooKeeper, then the directory.
        return new GatewayHarness(options, issuer,
                List.of(StoreBinding.of("pg", pg), StoreBinding.of("maria", maria), StoreBinding.of("files", files)),
                List.of(deleteDir, zookeeper, postgres, mariadb, issuer, closePgVertx, pg, maria, files));
    }
}
