package io.fencegate.examples.slots;

import io.fencegate.testing.GatewayProcess;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code fencegate serve --config} as a child process, as a user runs it: the workers' store
 * {@link Worker#STORE} in a Postgres schema of its own, and its leases from the same
 * database (the SQL issuer), so the example needs nothing but Postgres. The store's rule is
 * {@code same-lease}: a permit's token writes its partition again and again, once a job.
 */
record JobsGateway(GatewayProcess process, URI uri) implements AutoCloseable {

    static JobsGateway start(Path workDir, String jdbcUrl, String user, String password) throws Exception {
        String credentials = "    user: " + quoted(user) + "\n"
                + (password.isEmpty() ? "" : "    password: " + quoted(password) + "\n");
        String yaml = "issuer:\n  type: sql\n  url: " + quoted(jdbcUrl) + "\n" + credentials.replace("    ", "  ")
                + "stores:\n  " + Worker.STORE + ":\n    type: jdbc\n    url: " + quoted(jdbcUrl) + "\n" + credentials
                // A worker writes its partition once a job under one permit: same-lease lets a
                // token write an item again (strict, the default, lets each token write once).
                + "    rule: same-lease\n";
        Path config = workDir.resolve("fencegate.yaml");
        Files.writeString(config, yaml);
        GatewayProcess process = GatewayProcess.java(workDir, List.of("-XX:TieredStopAtLevel=1", "-Xmx256m", "-Xshare:auto"),
                "serve", "--port", "0", "--config", config.toString());
        try {
            return new JobsGateway(process, process.awaitReady(90).uri());
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
