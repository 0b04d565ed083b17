package io.fencegate.gateway.it;

import io.fencegate.gateway.auth.ApiKeyHasher;
import io.lettuce.core.RedisClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.curator.test.TestingServer;

/**
 * The configs {@link LaunchedGatewayIT} launches the gateway with, each with stores {@code main} and
 * {@code files}: the embedded default (no config), and two with real backends and API keys. What a
 * config needs is its own: a ZooKeeper server started here, a key prefix and a mark file of its
 * own on the shared Redis, a database or schema of its own on the shared MariaDB or Postgres;
 * {@link Running#close()} removes them.
 */
enum LaunchedConfig {
    /** {@code ./fencegate serve}: embedded ZooKeeper, H2 and files under {@code ./data}; no keys. */
    EMBEDDED_DEFAULT {
        @Override
        Running start(Path work) {
            return new Running(List.of("serve", "--port", "0", "--data", "data"), null, null, List.of());
        }
    },
    /** The Redis issuer (a key prefix of its own, a mark file) and a JDBC store on MariaDB. */
    REDIS_AND_MARIADB {
        @Override
        Running start(Path work) throws Exception {
            List<AutoCloseable> owned = new ArrayList<>();
            String prefix = "fg-launched-" + UUID.randomUUID() + ":";
            owned.add(() -> deleteRedisKeys(prefix));
            try {
                TestDatabases db = TestDatabases.create(TestDatabases.Kind.MARIADB);
                owned.add(db);
                String issuer = "issuer: { type: redis, uri: \"redis://127.0.0.1:6379\", keyPrefix: \"%s\", highWaterMarkFile: \"%s\" }"
                        .formatted(prefix, work.resolve("redis-tokens.mark"));
                String main = "  main: { type: jdbc, url: \"%s\", user: %s, password: \"\" }".formatted(db.url(), db.user());
                return withKeys(work, issuer, main, owned);
            } catch (Exception | Error e) {
                closeAll(owned);
                throw e;
            }
        }
    },
    /** A ZooKeeper server of this test's and the reactive Postgres store on a schema of its own. */
    ZOOKEEPER_AND_POSTGRES {
        @Override
        Running start(Path work) throws Exception {
            List<AutoCloseable> owned = new ArrayList<>();
            try {
                TestingServer zookeeper = new TestingServer(true);
                owned.add(zookeeper);
                TestDatabases db = TestDatabases.create(TestDatabases.Kind.POSTGRES);
                owned.add(db);
                String issuer = "issuer: { type: zookeeper, connectString: \"%s\" }".formatted(zookeeper.getConnectString());
                String main = ("  main: { type: postgres, host: 127.0.0.1, port: %d, database: test, schema: %s,"
                        + " user: %s }").formatted(db.backend().getPort(), db.name, db.user());
                return withKeys(work, issuer, main, owned);
            } catch (Exception | Error e) {
                closeAll(owned);
                throw e;
            }
        }
    };

    /**
     * What {@link #start} set up: the command line, and the API keys (null without auth): one for
     * every store and lock, one scoped to {@code main/alice/}.
     */
    record Running(List<String> command, String adminKey, String scopedKey, List<AutoCloseable> owned)
            implements AutoCloseable {
        String[] args() {
            return command.toArray(String[]::new);
        }

        @Override
        public void close() throws Exception {
            closeAll(owned);
        }
    }

    abstract Running start(Path work) throws Exception;

    /** A config file with {@code issuer}, the store line {@code main}, a files store and two API keys. */
    private static Running withKeys(Path work, String issuer, String main, List<AutoCloseable> owned) throws Exception {
        String admin = ApiKeyHasher.newKey();
        String alice = ApiKeyHasher.newKey();
        Path files = Files.createDirectories(work.resolve("files"));
        Path config = Files.writeString(work.resolve("fencegate.yaml"), """
                %s
                auth:
                  keys:
                    - { name: ops, sha256: %s, stores: "*", lockPrefixes: "*" }
                    - { name: alice, sha256: %s, stores: [main], lockPrefixes: ["main/alice/"] }
                stores:
                %s
                  files: { type: files, dir: "%s" }
                """.formatted(issuer, ApiKeyHasher.sha256Hex(admin), ApiKeyHasher.sha256Hex(alice), main, files));
        return new Running(List.of("serve", "--port", "0", "--config", config.toString()), admin, alice, owned);
    }

    private static void deleteRedisKeys(String prefix) {
        RedisClient redis = RedisClient.create("redis://127.0.0.1:6379");
        try (var c = redis.connect()) {
            List<String> keys = c.sync().keys(prefix + "*");
            if (!keys.isEmpty()) {
                c.sync().del(keys.toArray(String[]::new));
            }
        } finally {
            redis.shutdown();
        }
    }

    /** Closes the newest first; the first failure is thrown after every close was tried. */
    private static void closeAll(List<AutoCloseable> owned) throws Exception {
        Exception first = null;
        for (int i = owned.size() - 1; i >= 0; i--) {
            try {
                owned.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
