package io.fencegate.gateway.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.testing.RedisServer;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A backend that answers but refuses (no such role, a wrong password, no such database, a
 * permission it lacks) fails the start with a message that leads with the key to fix and says
 * what the server refused, never "cannot reach": that is for a server nothing answered for
 * ({@link UnreachableBackendIT}). Real PostgreSQL, MariaDB, H2 and Redis.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RefusedLoginIT {
    private static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    /** A PostgreSQL database of this suite's own: in it, a role without CREATE on public may not migrate. */
    private static final String PG_DB = "fg_refused_" + SUFFIX;
    private static final String PG_READER = "fg_refused_reader_" + SUFFIX;
    private static final String MARIA_DB = "fg_refused_" + SUFFIX;
    private static final String MARIA_USER = "fg_refused_" + SUFFIX;
    private static final String MARIA_NO_GRANTS = "fg_refused_none_" + SUFFIX;
    private static final String NO_ROLE = "fg_refused_nobody_" + SUFFIX;

    private Path data;
    private Vertx vertx;

    @BeforeAll
    static void createRolesAndDatabases() throws Exception {
        postgres("CREATE DATABASE " + PG_DB);
        postgres("CREATE ROLE " + PG_READER + " LOGIN");
        mariadb("CREATE DATABASE " + MARIA_DB);
        mariadb("CREATE USER '" + MARIA_USER + "'@'%' IDENTIFIED BY 'right'");
        mariadb("GRANT ALL ON " + MARIA_DB + ".* TO '" + MARIA_USER + "'@'%'");
        mariadb("CREATE USER '" + MARIA_NO_GRANTS + "'@'%' IDENTIFIED BY 'right'");
    }

    @AfterAll
    static void dropRolesAndDatabases() throws Exception {
        postgres("DROP DATABASE IF EXISTS " + PG_DB + " WITH (FORCE)");
        postgres("DROP ROLE IF EXISTS " + PG_READER);
        mariadb("DROP USER IF EXISTS '" + MARIA_USER + "'@'%'");
        mariadb("DROP USER IF EXISTS '" + MARIA_NO_GRANTS + "'@'%'");
        mariadb("DROP DATABASE IF EXISTS " + MARIA_DB);
    }

    private static void postgres(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static void mariadb(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:3306/", "root", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        data = Files.createTempDirectory(Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"))), "refused");
        Files.createDirectories(data.resolve("files"));
        vertx = Vertx.vertx();
    }

    @AfterEach
    void tearDown() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    private String filesStore() {
        return "stores:\n  docs: { type: files, dir: \"" + data.resolve("files") + "\" }\n";
    }

    private String embeddedIssuer() {
        return "issuer: { type: embedded-zookeeper, dataDir: \"" + data.resolve("zk") + "\" }\n";
    }

    private void assertStartRefused(String yaml, String message, String... also) {
        GatewayConfig config = ConfigLoader.parse(yaml, Map.of());
        var refused = assertThatThrownBy(() -> Backends.open(config, vertx).close())
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(message)
                .hasMessageNotContaining("cannot reach");
        if (also.length > 0) {
            refused.hasMessageContainingAll(also);
        }
    }

    // --- the SQL issuer

    @Test
    void aSqlIssuerOnPostgresWithNoSuchRoleNamesIssuerUser() {
        assertStartRefused("issuer: { type: sql, url: \"jdbc:postgresql://127.0.0.1:5432/" + PG_DB + "\", user: " + NO_ROLE
                        + " }\n" + filesStore(),
                "issuer.user: PostgreSQL at 127.0.0.1:5432 has no role " + NO_ROLE);
    }

    @Test
    void aSqlIssuerOnAMissingPostgresDatabaseNamesIssuerUrl() {
        assertStartRefused("issuer: { type: sql, url: \"jdbc:postgresql://127.0.0.1:5432/fg_refused_none\", user: postgres }\n"
                        + filesStore(),
                "issuer.url: PostgreSQL at 127.0.0.1:5432 has no database fg_refused_none", "CREATE DATABASE fg_refused_none");
    }

    @Test
    void aSqlIssuerWhoseRoleMayNotCreateItsTablesNamesIssuerUser() {
        assertStartRefused("issuer: { type: sql, url: \"jdbc:postgresql://127.0.0.1:5432/" + PG_DB + "\", user: " + PG_READER
                        + " }\n" + filesStore(),
                "issuer.user: PostgreSQL at 127.0.0.1:5432 refused " + PG_READER + " a permission", "permission denied for schema public");
    }

    @Test
    void aSqlIssuerOnMariaDbWithAWrongPasswordNamesIssuerPassword() {
        assertStartRefused("issuer: { type: sql, url: \"jdbc:mariadb://127.0.0.1:3306/" + MARIA_DB + "\", user: " + MARIA_USER
                        + ", password: wrong }\n" + filesStore(),
                "issuer.password: MariaDB/MySQL at 127.0.0.1:3306 refused user " + MARIA_USER, "access denied");
    }

    @Test
    void aSqlIssuerOnAMissingH2DatabaseNamesIssuerUrl() {
        String url = "jdbc:h2:file:" + data.resolve("none") + ";IFEXISTS=TRUE";
        assertStartRefused("issuer: { type: sql, url: \"" + url + "\" }\n" + filesStore(),
                "issuer.url: H2 has no database at " + data.resolve("none"));
    }

    @Test
    void aSqlIssuerOnAnUnreachableDatabaseSaysCannotReachUnderIssuerUrl() throws Exception {
        int closed = closedPort();
        GatewayConfig config = ConfigLoader.parse("issuer: { type: sql, url: \"jdbc:postgresql://127.0.0.1:" + closed
                + "/test\", user: postgres }\n" + filesStore(), Map.of());
        assertThatThrownBy(() -> Backends.open(config, vertx).close())
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("issuer.url: cannot reach the database at 127.0.0.1:" + closed + " (connection refused)");
    }

    // --- the postgres store

    @Test
    void aPostgresStoreWithNoSuchRoleNamesItsUser() {
        assertStartRefused(embeddedIssuer() + "stores:\n  ledger: { type: postgres, host: 127.0.0.1, port: 5432, database: "
                        + PG_DB + ", user: " + NO_ROLE + " }\n",
                "stores.ledger.user: PostgreSQL at 127.0.0.1:5432 has no role " + NO_ROLE);
    }

    @Test
    void aPostgresStoreOnAMissingDatabaseNamesItsDatabase() {
        assertStartRefused(embeddedIssuer() + "stores:\n  ledger: { type: postgres, host: 127.0.0.1, port: 5432,"
                        + " database: fg_refused_none, user: postgres }\n",
                "stores.ledger.database: PostgreSQL at 127.0.0.1:5432 has no database fg_refused_none");
    }

    // --- the jdbc store

    @Test
    void aJdbcStoreOnMariaDbWithAWrongPasswordNamesItsPassword() {
        assertStartRefused(embeddedIssuer() + "stores:\n  orders: { type: jdbc, url: \"jdbc:mariadb://127.0.0.1:3306/" + MARIA_DB
                        + "\", user: " + MARIA_USER + ", password: wrong }\n",
                "stores.orders.password: MariaDB/MySQL at 127.0.0.1:3306 refused user " + MARIA_USER, "access denied");
    }

    @Test
    void aJdbcStoreOnAMissingMariaDbDatabaseNamesItsUrl() {
        assertStartRefused(embeddedIssuer() + "stores:\n  orders: { type: jdbc, url: \"jdbc:mariadb://127.0.0.1:3306/fg_refused_none\","
                        + " user: root }\n",
                "stores.orders.url: MariaDB/MySQL at 127.0.0.1:3306 has no database fg_refused_none");
    }

    @Test
    void aJdbcStoreWhoseMariaDbUserMayNotUseTheDatabaseNamesItsUser() {
        assertStartRefused(embeddedIssuer() + "stores:\n  orders: { type: jdbc, url: \"jdbc:mariadb://127.0.0.1:3306/" + MARIA_DB
                        + "\", user: " + MARIA_NO_GRANTS + ", password: right }\n",
                "stores.orders.user: MariaDB/MySQL at 127.0.0.1:3306 refused " + MARIA_NO_GRANTS + " a permission");
    }

    @Test
    void aJdbcStoreOnH2WithAWrongPasswordNamesItsPassword() throws Exception {
        String url = "jdbc:h2:file:" + data.resolve("h2db");
        DriverManager.getConnection(url, "owner", "right").close();
        assertStartRefused(embeddedIssuer() + "stores:\n  orders: { type: jdbc, url: \"" + url + "\", user: owner, password: wrong }\n",
                "stores.orders.password: H2 refused user owner", "wrong user name or password");
    }

    @Test
    void aJdbcStoreOnPostgresWithNoSuchRoleNamesItsUser() {
        assertStartRefused(embeddedIssuer() + "stores:\n  orders: { type: jdbc, url: \"jdbc:postgresql://127.0.0.1:5432/" + PG_DB
                        + "\", user: " + NO_ROLE + " }\n",
                "stores.orders.user: PostgreSQL at 127.0.0.1:5432 has no role " + NO_ROLE);
    }

    // --- files, Redis, ZooKeeper

    @Test
    void aFilesStoreOnAFileNamesItsDir() throws Exception {
        Path file = Files.writeString(data.resolve("not-a-dir"), "x");
        assertStartRefused(embeddedIssuer() + "stores:\n  docs: { type: files, dir: \"" + file + "\" }\n",
                "stores.docs.dir: " + file + " is a file, not a directory");
    }

    @Test
    void aRedisThatWantsAPasswordNamesIssuerUri() throws Exception {
        try (RedisServer redis = RedisServer.start(data.resolve("redis"))) {
            // Set once it is up: the helper's readiness check speaks without a password.
            redis.command("CONFIG SET requirepass right");
            String issuer = "issuer: { type: redis, uri: \"redis://127.0.0.1:%d\", highWaterMarkFile: \"" + data.resolve("mark") + "\" }\n";
            assertStartRefused(issuer.formatted(redis.port()) + filesStore(),
                    "issuer.uri: Redis at 127.0.0.1:" + redis.port() + " wants a password");
            String wrong = "issuer: { type: redis, uri: \"redis://wrong@127.0.0.1:%d\", highWaterMarkFile: \"" + data.resolve("mark") + "\" }\n";
            assertStartRefused(wrong.formatted(redis.port()) + filesStore(),
                    "issuer.uri: Redis at 127.0.0.1:" + redis.port() + " refused the password");
        }
    }

    @Test
    void aZooKeeperConnectStringOnAServerThatIsNotZooKeeperSaysWhatAnswered() throws Exception {
        // The shared Redis answers on 6379, but no ZooKeeper session starts there.
        assertStartRefused("issuer: { type: zookeeper, connectString: \"127.0.0.1:6379\", sessionTimeout: 2s }\n" + filesStore(),
                "issuer.connectString: 127.0.0.1:6379 answered but is not ZooKeeper");
    }

    private static int closedPort() throws Exception {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
