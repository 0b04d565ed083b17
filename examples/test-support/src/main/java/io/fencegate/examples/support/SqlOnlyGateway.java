package io.fencegate.examples.support;

import io.fencegate.testing.GatewayProcess;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code fencegate serve --config} as a child process, as a user runs it: one store in a database
 * of its own (a Postgres schema, say), and its leases from the same database (the SQL issuer),
 * so the example needs nothing but that database.
 */
public record SqlOnlyGateway(GatewayProcess process, URI uri) implements AutoCloseable {

    /**
     * @param store the store's name, the first segment of its items' keys
     * @param rule  the store's rule ({@code same-lease} lets one lease's token write an item again;
     *              {@code null} keeps the default, {@code strict}, which lets each token write once)
     */
    public static SqlOnlyGateway start(Path workDir, String jdbcUrl, String user, String password, String store, String rule)
            throws Exception {
        String credentials = "    user: " + quoted(user) + "\n"
                + (password.isEmpty() ? "" : "    password: " + quoted(password) + "\n");
        String yaml = "issuer:\n  type: sql\n  url: " + quoted(jdbcUrl) + "\n" + credentials.replace("    ", "  ")
                + "stores:\n  " + store + ":\n    type: jdbc\n    url: " + quoted(jdbcUrl) + "\n" + credentials
                + (rule == null ? "" : "    rule: " + rule + "\n");
        Path config = workDir.resolve("fencegate.yaml");
        Files.writeString(config, yaml);
        GatewayProcess process = GatewayProcess.java(workDir, List.of("-XX:TieredStopAtLevel=1", "-Xmx256m", "-Xshare:auto"),
                "serve", "--port", "0", "--config", config.toString());
        try {
            return new SqlOnlyGateway(process, process.awaitReady(90).uri());
        } catch (RuntimeException | InterruptedException e) {
            process.close();
            throw new IllegalStateException("the gateway did not start: " + e.getMessage(), e);
        }
    }

    private static String quoted(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    @Override
    public void close() throws Exception {
        process.close(); // SIGTERM: the gateway drains and closes its sessions
    }
}
