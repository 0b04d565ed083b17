package io.fencegate.demo;

import io.fencegate.issuer.zookeeper.provider.EmbeddedZooKeeper;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.fencegate.testing.GatewayProcess;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code fencegate serve} as a child process, as a user runs it: the embedded default (its own
 * ZooKeeper and H2) when the demo runs on defaults, else a config that names the demo's
 * databases and either a ZooKeeper server of the demo's own, the Redis at 127.0.0.1:6379
 * under a random key prefix (removed at the end; never FLUSHALL), or the SQL issuer in the
 * store's own database (dropped with it).
 */
record DemoGateway(GatewayProcess process, EmbeddedZooKeeper zookeeper, String redisPrefix, URI uri,
        String issuerDescription) implements AutoCloseable {
    static final String REDIS_URI = "redis://127.0.0.1:6379";

    static DemoGateway start(String issuer, Databases db, Path workDir, String redisPrefix) throws Exception {
        List<String> command = new ArrayList<>(List.of("serve", "--port", "0"));
        EmbeddedZooKeeper zookeeper = null;
        String description;
        if (issuer.equals("zookeeper") && db.gatewayUrl.startsWith("jdbc:h2:")) {
            command.addAll(List.of("--data", workDir.resolve("gateway").toString()));
            description = "ZooKeeper (the gateway's embedded server)";
        } else {
            StringBuilder yaml = new StringBuilder("issuer:\n");
            if (issuer.equals("zookeeper")) {
                zookeeper = EmbeddedZooKeeper.start(workDir.resolve("zookeeper"));
                yaml.append("  type: zookeeper\n  connectString: ").append(zookeeper.connectString()).append('\n');
                description = "ZooKeeper (a server of the demo's own, " + zookeeper.connectString() + ")";
            } else if (issuer.equals("redis")) {
                yaml.append("  type: redis\n  uri: ").append(REDIS_URI).append('\n')
                        .append("  keyPrefix: \"").append(redisPrefix).append("\"\n")
                        .append("  highWaterMarkFile: ").append(workDir.resolve("redis-tokens.mark")).append('\n');
                description = "Redis " + REDIS_URI + ", key prefix " + redisPrefix;
            } else if (issuer.equals("sql")) {
                // The store's own database (H2 file, Postgres schema, MariaDB database): its lease tables sit beside the store's.
                yaml.append("  type: sql\n  url: \"").append(db.gatewayUrl).append("\"\n  user: ").append(db.user).append('\n');
                appendPassword(yaml, "  ", db);
                description = "SQL (leases in the store's database, " + describe(db.gatewayUrl) + ")";
            } else {
                throw new IllegalArgumentException("--issuer: expected zookeeper, redis or sql, got '" + issuer + "'");
            }
            yaml.append("stores:\n  ").append(Databases.GATEWAY_STORE).append(":\n    type: jdbc\n    url: \"")
                    .append(db.gatewayUrl).append("\"\n    user: ").append(db.user).append('\n');
            appendPassword(yaml, "    ", db);
            Path config = workDir.resolve("fencegate.yaml");
            Files.writeString(config, yaml);
            command.addAll(List.of("--config", config.toString()));
        }
        GatewayProcess process = GatewayProcess.java(workDir, List.of("-XX:TieredStopAtLevel=1", "-Xmx256m", "-Xshare:auto"),
                command.toArray(String[]::new));
        try {
            URI uri = process.awaitReady(60).uri();
            return new DemoGateway(process, zookeeper, issuer.equals("redis") ? redisPrefix : null, uri, description);
        } catch (RuntimeException | InterruptedException e) {
            process.close();
            if (zookeeper != null) {
                zookeeper.close();
            }
            throw new IllegalStateException("the gateway did not start: " + e.getMessage(), e);
        }
    }

    /** {@code password: "…"} at {@code indent}, if the database has a password. */
    private static void appendPassword(StringBuilder yaml, String indent, Databases db) {
        if (!db.password.isEmpty()) {
            yaml.append(indent).append("password: \"").append(db.password.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"\n");
        }
    }

    /** Where a JDBC URL points, without parameters (which may hold a password). */
    private static String describe(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:h2:") ? "H2 " + jdbcUrl.substring("jdbc:h2:".length()).replaceAll(";.*", "")
                : Databases.where(jdbcUrl);
    }

    @Override
    public void close() throws Exception {
        process.close(); // SIGTERM: the gateway drains and closes its sessions
        if (zookeeper != null) {
            zookeeper.close();
        }
        if (redisPrefix != null) {
            deleteRedisKeys(redisPrefix);
        }
    }

    /** Removes the demo's own keys (issuer and mode 1's lock) by prefix: SCAN + DEL, never FLUSHALL. */
    static void deleteRedisKeys(String prefix) {
        RedisClient client = RedisClient.create(REDIS_URI);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            var redis = connection.sync();
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(500));
                if (!page.getKeys().isEmpty()) {
                    redis.del(page.getKeys().toArray(String[]::new));
                }
                cursor = page;
            } while (!cursor.isFinished());
        } finally {
            client.shutdown();
        }
    }
}
