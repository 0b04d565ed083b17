package io.fencegate.bench;

import io.fencegate.client.FencegateClient;
import io.fencegate.testing.GatewayProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The Python and Node clients' guarded PUTs through one gateway, each against the same language's
 * plain HTTP loop on the same route (Python's {@code http.client}, Node's {@code fetch}): what the
 * client costs over the least a user of that language would write. The gateway and its store are
 * the Java client's ({@link GatewayWrites}: reactive Postgres, {@code same-lease}, one store lock,
 * 100-byte values over 10k keys), so one token serves every write. Each measurement is a child
 * process of the language's own ({@code bench/clients/}); the clients are loaded from the checkout
 * (the Python package's sources, the Node package's compiled {@code dist/}).
 */
final class ClientLanguages implements AutoCloseable {
    static final String SECTION = "Python and Node clients vs their plain HTTP loops";
    static final String PYTHON = "Python";
    static final String NODE = "Node";
    private final String name = WriteBenchData.freshNamespace();
    private final GatewayProcess gateway;
    private final long token;
    private final Path clients;
    private final Path scripts;

    ClientLanguages(Path workDir, Path repo) throws Exception {
        clients = repo.resolve("clients");
        scripts = repo.resolve("bench/clients");
        Path nodeClient = clients.resolve("typescript/dist/index.js");
        if (!Files.isRegularFile(nodeClient)) {
            throw new IllegalStateException(nodeClient + " is missing: build the Node client first"
                    + " (mvn -pl clients/typescript package, which bench/run does)");
        }
        Files.createDirectories(workDir);
        try (Connection pg = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
             Statement s = pg.createStatement()) {
            s.execute("CREATE SCHEMA " + name);
        }
        Path config = workDir.resolve("fencegate.yaml");
        Files.writeString(config, String.join("\n",
                "issuer:",
                "  type: embedded-zookeeper",
                "  dataDir: " + workDir.resolve("zookeeper"),
                "stores:",
                "  pg:",
                "    type: postgres",
                "    database: test",
                "    schema: " + name,
                "    user: postgres",
                "    poolSize: " + GatewayWrites.POOL,
                "    rule: same-lease",
                "    lock: bench",
                ""));
        gateway = BenchGateway.start(config, workDir);
        FencegateClient client = FencegateClient.builder(gateway.uri()).build();
        token = client.acquire("bench", Duration.ofHours(1), Duration.ZERO)
                .orElseThrow(() -> new IllegalStateException("no lease on the bench lock")).token();
        for (int i = 0; i < 500; i++) { // a cold gateway answers its first requests slowly: prime it
            client.put("pg", "k" + (i % GatewayWrites.KEYS + 1), token, WriteBenchData.VALUE);
        }
    }

    List<Scenario> scenarios() {
        String url = gateway.uri().toString().replaceAll("/$", "");
        String script = scripts.toString();
        Map<String, String> python = Map.of("PYTHONPATH", clients.resolve("python/src").toString(), "PYTHONDONTWRITEBYTECODE", "1");
        List<String> py = List.of("python3", script + "/python_writes.py", url, "pg", Long.toString(token));
        List<String> node = List.of("node", script + "/node_writes.mjs", clients.resolve("typescript/dist/index.js").toUri().toString(),
                url, "pg", Long.toString(token));
        String unit = "guarded PUT";
        return List.of(
                new Scenario(SECTION, PYTHON + ", in flight", unit, 16, List.of(
                        new ScriptContender("fencegate client (Python)", with(py, "client"), python, GatewayWrites.KEYS),
                        new ScriptContender("http.client, a keep-alive connection a thread", with(py, "plain"), python, GatewayWrites.KEYS))),
                new Scenario(SECTION, NODE + ", in flight", unit, 16, List.of(
                        new ScriptContender("@fencegate/client (Node)", with(node, "client"), Map.of(), GatewayWrites.KEYS),
                        new ScriptContender("fetch (Node's built-in)", with(node, "plain"), Map.of(), GatewayWrites.KEYS))));
    }

    private static List<String> with(List<String> command, String mode) {
        return Stream.concat(command.stream(), Stream.of(mode)).toList();
    }

    @Override
    public void close() throws Exception {
        gateway.close();
        try (Connection pg = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
             Statement s = pg.createStatement()) {
            s.execute("DROP SCHEMA " + name + " CASCADE");
        }
    }
}
