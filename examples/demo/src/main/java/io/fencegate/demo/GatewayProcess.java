package io.fencegate.demo;

import io.fencegate.issuer.zookeeper.provider.EmbeddedZooKeeper;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code fencegate serve} as a child process, as a user runs it: the embedded default (its own
 * ZooKeeper and H2) when the demo runs on defaults, else a config that names the demo's
 * databases and either a ZooKeeper server of the demo's own, the Redis at 127.0.0.1:6379
 * under a random key prefix (removed at the end; never FLUSHALL), or the SQL issuer in the
 * store's own database (dropped with it).
 */
final class GatewayProcess implements AutoCloseable {
    static final String REDIS_URI = "redis://127.0.0.1:6379";
    private static final Pattern READY = Pattern.compile("fencegate listening on http://127\\.0\\.0\\.1:(\\d+) .*");

    private final Process process;
    private final EmbeddedZooKeeper zookeeper;
    private final String redisPrefix;
    final URI uri;
    final String issuerDescription;

    private GatewayProcess(Process process, EmbeddedZooKeeper zookeeper, String redisPrefix, URI uri, String issuer) {
        this.process = process;
        this.zookeeper = zookeeper;
        this.redisPrefix = redisPrefix;
        this.uri = uri;
        this.issuerDescription = issuer;
    }

    static GatewayProcess start(String issuer, Databases db, Path workDir, String redisPrefix) throws Exception {
        List<String> command = new ArrayList<>(List.of(javaBin(), "-XX:TieredStopAtLevel=1", "-Xmx256m", "-Xshare:auto",
                "-cp", System.getProperty("java.class.path"), "io.fencegate.gateway.cli.Main", "serve", "--port", "0"));
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
        Process process = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start();
        URI uri = awaitReady(process, 60);
        return new GatewayProcess(process, zookeeper, issuer.equals("redis") ? redisPrefix : null, uri, description);
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

    /** Reads until the "listening" line; the rest of its output is drained so it never blocks. */
    private static URI awaitReady(Process process, int seconds) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        List<String> seen = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try {
                for (String line; (line = out.readLine()) != null; ) {
                    synchronized (seen) {
                        seen.add(line);
                        seen.notifyAll();
                    }
                }
            } catch (IOException ignored) {
                // the gateway is gone; close() reports nothing more
            }
        }, "demo-gateway-output");
        reader.setDaemon(true);
        reader.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        synchronized (seen) {
            while (System.nanoTime() < deadline) {
                for (String line : seen) {
                    Matcher m = READY.matcher(line);
                    if (m.matches()) {
                        return URI.create("http://127.0.0.1:" + m.group(1) + "/");
                    }
                }
                if (!process.isAlive()) {
                    break;
                }
                seen.wait(100);
            }
            process.destroyForcibly();
            throw new IllegalStateException("the gateway did not start: " + String.join("\n", seen));
        }
    }

    static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Override
    public void close() {
        process.destroy(); // SIGTERM: the gateway drains and closes its sessions
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
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
