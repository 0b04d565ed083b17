package io.fencegate.clients.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fencegate.examples.support.StockShelf;
import io.fencegate.testing.ChildProcess;
import io.fencegate.testing.GatewayProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The npm package as a user gets it: the tarball {@code npm pack} wrote is installed into a fresh
 * project ({@code npm install <tgz>}, offline: it has no dependencies), and that project runs the
 * package's {@code node:test} suite (test/*.test.mjs: the README quickstart, leases kept alive through
 * a busy and a blocked event loop, release on a throw, retry with the same token, bad input) and
 * examples/node/sell.mjs against {@code fencegate serve}. The gateway runs an embedded ZooKeeper and
 * an H2 store {@code main} with one named statement, for the statement outcomes.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class NodeClientIT {
    private static final Path PACKAGE = Path.of(System.getProperty("fencegate.npm.package", "")).toAbsolutePath();
    private static final String VERSION = System.getProperty("fencegate.version", "");
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path work;
    private static Path project;
    private static GatewayProcess gateway;
    private static String url;

    @BeforeAll
    static void startGatewayAndInstallThePackedPackage() throws Exception {
        work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "node-client");
        Path config = work.resolve("fencegate.yaml");
        Files.writeString(config, """
                server: { port: 0 }
                issuer: { type: embedded-zookeeper, dataDir: "%s" }
                stores:
                  main:
                    type: jdbc
                    url: "jdbc:h2:file:%s"
                    user: sa
                    password: ""
                    statements:
                      touch: "UPDATE fencegate_item SET token = token WHERE token = :token"
                """.formatted(work.resolve("zookeeper"), work.resolve("h2").resolve("main")));
        gateway = GatewayProcess.start(work, "serve", "--config", config.toString());
        project = Files.createDirectories(work.resolve("project"));
        Files.writeString(project.resolve("package.json"), "{\"name\":\"a-user-project\",\"private\":true,\"type\":\"module\"}\n");
        // While the gateway starts: the install a user makes, offline (nothing to fetch).
        run(project, 120, "npm", "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tarball().toString());
        url = gateway.awaitReady(120).uri().toString().replaceAll("/$", "");
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (work != null) {
            try (Stream<Path> all = Files.walk(work)) {
                all.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void packageVersionFollowsTheGateway() throws IOException {
        assertThat(JSON.readTree(PACKAGE.resolve("package.json").toFile()).path("version").asText())
                .as("clients/typescript/package.json's version must be the gateway's (%s)", VERSION)
                .isEqualTo(VERSION);
    }

    @Test
    void packageReadmeHasTheQuickstartTheTestsRun() throws IOException {
        Matcher quickstart = Pattern.compile("<!-- quickstart:begin -->\\s*```js\n(.*?)```\\s*<!-- quickstart:end -->", Pattern.DOTALL)
                .matcher(Files.readString(PACKAGE.resolve("README.md")));
        assertThat(quickstart.find()).as("clients/typescript/README.md has a quickstart block").isTrue();
        assertThat(Files.readString(PACKAGE.resolve("../../README.md").normalize()))
                .as("README.md's Use it names the package and links its README")
                .contains("@fencegate/client").contains("(clients/typescript/README.md)");
    }

    @Test
    void installedPackageIsTheBuiltModuleWithNoDependencies() throws IOException {
        Path installed = project.resolve("node_modules/@fencegate/client");
        JsonNode manifest = JSON.readTree(installed.resolve("package.json").toFile());
        assertThat(manifest.path("dependencies").size()).as("runtime dependencies").isZero();
        assertThat(manifest.path("type").asText()).isEqualTo("module");
        assertThat(installed.resolve("dist/index.js")).exists();
        assertThat(installed.resolve("dist/index.d.ts")).exists();
        assertThat(installed.resolve("README.md")).exists();
        assertThat(installed.resolve("LICENSE")).exists();
        assertThat(installed.resolve("src")).doesNotExist();
        assertThat(installed.resolve("test")).doesNotExist();
        try (Stream<Path> modules = Files.list(project.resolve("node_modules"))) {
            assertThat(modules.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")))
                    .as("nothing but the package itself was installed").containsExactly("@fencegate");
        }
    }

    @Test
    void packageTestsPassAgainstTheGateway() throws Exception {
        Path tests = Files.createDirectories(project.resolve("test"));
        List<String> files = new ArrayList<>();
        try (Stream<Path> all = Files.list(PACKAGE.resolve("test"))) {
            for (Path file : all.sorted().toList()) {
                Files.copy(file, tests.resolve(file.getFileName()));
                if (file.getFileName().toString().endsWith(".test.mjs")) {
                    files.add("test/" + file.getFileName());
                }
            }
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(4);
        // One node --test per file, all at once: on 2 cores node runs a single file at a time itself,
        // and the files wait on leases and timers far more than they compute.
        List<ChildProcess> runs = new ArrayList<>();
        try {
            for (String file : files) {
                runs.add(node("--test", "--test-reporter=spec", file));
            }
            for (int i = 0; i < runs.size(); i++) {
                ChildProcess run = runs.get(i);
                int exit = run.await(150);
                System.out.println("$ node --test " + files.get(i) + "\n" + run.output());
                assertThat(exit).as("node --test %s:%n%s", files.get(i), run.output()).isZero();
                assertThat(run.output()).as(files.get(i)).contains("ℹ fail 0").doesNotContain("ℹ pass 0");
            }
        } finally {
            for (ChildProcess run : runs) {
                run.close();
            }
        }
    }

    @Test
    void sellMjsSellsOutWithFencedReadModifyWrites() throws Exception {
        StockShelf shelf = new StockShelf(url);
        shelf.stock("stock/node", 3);
        String output = run(project, 60, "node", sellMjs(), url, "main", "stock/node", "10");
        assertThat(output).contains("done: sold 3");
        assertThat(output.lines().filter(l -> l.startsWith("sold 1 with token "))).hasSize(3);
        assertThat(shelf.stockOf("stock/node")).isEqualTo("0");
    }

    @Test
    void twoSellersTogetherSellExactlyTheStock() throws Exception {
        StockShelf shelf = new StockShelf(url);
        shelf.stock("stock/node-race", 12);
        String sell = sellMjs();
        try (ChildProcess a = node(sell, url, "main", "stock/node-race", "100");
                ChildProcess b = node(sell, url, "main", "stock/node-race", "100")) {
            assertThat(a.await(90)).as("%s", a.output()).isZero();
            assertThat(b.await(90)).as("%s", b.output()).isZero();
            long sold = Stream.of(a, b).flatMap(p -> p.output().lines()).filter(l -> l.startsWith("sold 1 ")).count();
            assertThat(sold).as("%s\n%s", a.output(), b.output()).isEqualTo(12);
        }
        assertThat(shelf.stockOf("stock/node-race")).isEqualTo("0");
    }

    /** examples/node/sell.mjs, copied into the user's project (where its import resolves). */
    private static String sellMjs() throws IOException {
        Path sell = project.resolve("sell.mjs");
        if (!Files.exists(sell)) {
            Files.copy(PACKAGE.resolve("../../examples/node/sell.mjs").normalize(), sell);
        }
        return sell.getFileName().toString();
    }

    private static Path tarball() {
        Path tgz = PACKAGE.resolve("target/fencegate-client-" + VERSION + ".tgz");
        assertThat(tgz).as("npm pack's tarball (its name carries package.json's version)").exists();
        return tgz;
    }

    private static ChildProcess node(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("node"));
        command.addAll(List.of(args));
        return ChildProcess.command("node", command).directory(project).env(Map.of("FENCEGATE_URL", url == null ? "" : url)).start();
    }

    /** Runs a command in {@code dir} to its end; its output, printed to this test's log; fails unless it exits 0. */
    private static String run(Path dir, long seconds, String... command) throws Exception {
        Map<String, String> env = url == null ? Map.of() : Map.of("FENCEGATE_URL", url);
        try (ChildProcess p = ChildProcess.command(command[0], List.of(command)).directory(dir).env(env).start()) {
            int exit = p.await(seconds);
            String output = p.output();
            System.out.println("$ " + String.join(" ", command) + "\n" + output);
            assertThat(exit).as("%s exited with %d:\n%s", String.join(" ", command), exit, output).isZero();
            return output;
        }
    }
}
