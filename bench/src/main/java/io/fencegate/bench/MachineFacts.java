package io.fencegate.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/** What the report says about the machine and the exact versions, read where they are, not assumed. */
final class MachineFacts {
    private MachineFacts() {}

    static Map<String, String> machine() {
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("CPUs (nproc)", Integer.toString(Runtime.getRuntime().availableProcessors()));
        facts.put("CPU", firstLine("/proc/cpuinfo", "model name"));
        facts.put("memory", firstLine("/proc/meminfo", "MemTotal"));
        facts.put("OS", firstLine("/etc/os-release", "PRETTY_NAME") + ", kernel " + System.getProperty("os.version"));
        facts.put("JDK", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        facts.put("load average at start (1/5/15 min)", loadAverage());
        return facts;
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " / " + f[1] + " / " + f[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    static Map<String, String> versions() {
        Map<String, String> versions = new LinkedHashMap<>();
        Properties p = new Properties();
        try (InputStream in = MachineFacts.class.getResourceAsStream("/versions.properties")) {
            p.load(in);
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("versions.properties is missing from the bench's classpath", e);
        }
        p.stringPropertyNames().stream().sorted().forEach(k -> versions.put(k, p.getProperty(k)));
        versions.put("PostgreSQL server", query("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "SHOW server_version"));
        versions.put("MariaDB server", query("jdbc:mariadb://127.0.0.1:3306/", "root", "SELECT VERSION()"));
        versions.put("Redis server", redisVersion());
        versions.put("pgbench", command("pgbench", "--version"));
        return versions;
    }

    private static String query(String url, String user, String sql) {
        try (Connection c = DriverManager.getConnection(url, user, ""); ResultSet rs = c.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        } catch (Exception e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static String redisVersion() {
        try (io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(RedisLeases.URI);
             var connection = client.connect()) {
            return connection.sync().info("server").lines().filter(l -> l.startsWith("redis_version:"))
                    .findFirst().map(l -> l.substring("redis_version:".length()).trim()).orElse("unknown");
        } catch (RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static String command(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            p.waitFor();
            return out;
        } catch (IOException | InterruptedException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static String firstLine(String file, String prefix) {
        try {
            return Files.readAllLines(Path.of(file)).stream().filter(l -> l.startsWith(prefix))
                    .findFirst().map(l -> l.substring(l.indexOf(prefix.equals("PRETTY_NAME") ? '=' : ':') + 1)
                            .replace("\"", "").trim()).orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
