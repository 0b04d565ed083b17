package io.fencegate.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.testing.ChildProcess;
import io.fencegate.testing.GatewayProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The release archive as a user gets it: unpacked into a temp folder and run with a PATH that
 * holds only {@code java} and an empty HOME, so nothing of the build (Maven, ~/.m2, target/) can help.
 */
class ReleaseArchiveIT {
    private static Unpacked dist;

    @BeforeAll
    static void unpack() throws Exception {
        dist = Unpacked.tarball();
    }

    @AfterAll
    static void clean() throws IOException {
        dist.close();
    }

    @Test
    void archiveHoldsLauncherConfigsLicenseNoticesAndOneCopyOfEachJar() throws Exception {
        assertThat(Files.getPosixFilePermissions(dist.bin)).contains(PosixFilePermission.OWNER_EXECUTE);
        for (String file : List.of("conf/fencegate.yaml", "conf/logback.xml", "conf/examples/redis-mariadb.yaml",
                "conf/examples/zookeeper-postgres.yaml", "LICENSE", "THIRD-PARTY.txt", "VERSION",
                "clients/typescript/fencegate-client-" + System.getProperty("fencegate.version") + ".tgz",
                "clients/typescript/README.md", "clients/python/README.md")) {
            assertThat(dist.root.resolve(file)).as(file).isRegularFile();
        }
        assertThat(Files.readString(dist.root.resolve("LICENSE"))).contains("Apache License", "Version 2.0");
        // The Python client's wheel (its version is the build's, mapped to PEP 440), with its README.
        String wheel = "clients/python/fencegate-" + System.getProperty("fencegate.version").replace("-SNAPSHOT", ".dev0")
                + "-py3-none-any.whl";
        assertThat(dist.root.resolve(wheel)).as(wheel).isRegularFile();
        try (ZipFile python = new ZipFile(dist.root.resolve(wheel).toFile())) {
            assertThat(python.getEntry("fencegate/__init__.py")).isNotNull();
            assertThat(python.getEntry("fencegate/py.typed")).isNotNull();
        }
        try (Stream<Path> clients = Files.list(dist.root.resolve("clients"))) {
            assertThat(clients.map(p -> p.getFileName().toString())).as("one folder per client, nothing loose")
                    .containsExactlyInAnyOrder("python", "typescript");
        }

        List<String> jars;
        try (Stream<Path> lib = Files.list(dist.root.resolve("lib"))) {
            jars = lib.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(jars).allMatch(j -> j.endsWith(".jar")).hasSizeGreaterThan(50)
                .noneMatch(j -> j.startsWith("junit-") || j.startsWith("assertj-") || j.startsWith("awaitility-"));
        Map<String, List<String>> byArtifact = jars.stream()
                .collect(Collectors.groupingBy(j -> j.replaceFirst("-\\d[^-]*(-[A-Za-z]+)?\\.jar$", ""), TreeMap::new, Collectors.toList()));
        assertThat(byArtifact.values()).as("one version of each artifact").allMatch(v -> v.size() == 1);
        // One logging backend: a second SLF4J provider makes every command warn, and which one wins depends
        // on the order lib/* lists.
        assertThat(jars).filteredOn(j -> j.startsWith("slf4j-nop") || j.startsWith("slf4j-simple")).isEmpty();

        // Every bundled third-party jar is listed in the notices, with a license.
        String notices = Files.readString(dist.root.resolve("THIRD-PARTY.txt"));
        List<String> unlisted = jars.stream().filter(j -> !j.startsWith("fencegate-"))
                .filter(j -> !listed(notices, j)).toList();
        assertThat(unlisted).as("jars missing from THIRD-PARTY.txt").isEmpty();
        assertThat(notices.lines().filter(l -> l.contains("Unknown license") && !l.contains("io.fencegate:"))).isEmpty();

        // The zip holds the same files as the tarball.
        List<String> tarFiles;
        try (Stream<Path> all = Files.walk(dist.root)) {
            tarFiles = all.filter(Files::isRegularFile).map(p -> dist.root.getParent().relativize(p).toString()).sorted().toList();
        }
        try (ZipFile zip = new ZipFile(System.getProperty("fencegate.zip"))) {
            List<String> zipFiles = Collections.list(zip.entries()).stream().filter(e -> !e.isDirectory())
                    .map(e -> e.getName()).sorted().toList();
            assertThat(zipFiles).isEqualTo(tarFiles);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void versionAndHashKeyRunOnJavaAloneAndNoJavaIsSaidPlainly() throws Exception {
        Path work = dist.work("version");
        Result version = run(dist.bare(work, dist.bin.toString(), "version"), 30);
        assertThat(version.exit).as(version.out).isZero();
        assertThat(version.out).contains("fencegate " + System.getProperty("fencegate.version"), "version \"");
        Result missing = run(dist.bare(work, dist.bin.toString(), "version").env(Map.of("PATH", work.toString())), 30);
        assertThat(missing.exit).isEqualTo(127);
        assertThat(missing.out).contains("no Java runtime found");
        Result key = run(dist.bare(work, dist.bin.toString(), "hash-key", "--name", "billing"), 30);
        assertThat(key.exit).as(key.out).isZero();
        assertThat(key.out).contains("API key", "name: billing", "sha256: ");
    }

    /**
     * Also installs the archive's Python wheel and npm tarball as a user does (pip into a fresh venv,
     * npm into an empty project) while the gateway starts, and runs a five-line program of each
     * against it ({@link ClientsFromArchive}).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void servesTheReadmeWalkthroughAndPassesCheckWithOnlyJavaOnPath() throws Exception {
        Map<String, Long> archiveBefore = snapshot(dist.root);
        // Started through a symbolic link elsewhere, as from /usr/local/bin: it finds its lib/ all the same.
        Path links = dist.work("links");
        Path link = Files.createSymbolicLink(links.resolve("fencegate"), dist.bin);
        Path work = dist.work("serve");

        GatewayProcess serve = GatewayProcess.of(dist.bare(work, link.toString(), "serve", "--port", "0"));
        try {
            ClientsFromArchive clients = ClientsFromArchive.install(dist.root, dist.work("clients"));
            int port = serve.awaitReady(120).port();
            String url = "http://127.0.0.1:" + port;

            // README's walkthrough (curl and jq are the walkthrough's own tools: this process's PATH).
            Result walked = run(ChildProcess.command("walkthrough", List.of("bash",
                    repoRoot().resolve("examples/curl/walkthrough.sh").toString())).env(Map.of("FENCEGATE", url)), 60);
            assertThat(walked.exit).as(walked.out).isZero();
            assertThat(walked.out.lines()).as(walked.out)
                    .anyMatch(l -> l.startsWith("{\"applied\":true,") && l.contains("\"previousToken\":0"))
                    .contains("A reads: 1", "B reads: 1", "stock: 0")
                    .anyMatch(l -> l.contains("urn:fencegate:problem:stale") && l.endsWith(" -> 409"));

            // bin/fencegate check for a few seconds against it.
            Result check = run(dist.bare(work, dist.bin.toString(), "check", "--url", url, "--workload", "counter",
                    "--seconds", "3", "--clients", "2", "--out", work.resolve("check").toString()), 90);
            assertThat(check.exit).as(check.out).isZero();
            assertThat(work.resolve("check/summary.json")).isRegularFile();

            // Every metric the Grafana dashboard and the alert rules query is one this gateway exports.
            String scrape;
            try (var in = java.net.URI.create(url + "/metrics").toURL().openStream()) {
                scrape = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertThat(MonitoredMetrics.exported(scrape)).as(scrape).containsAll(MonitoredMetrics.queried());

            // The clients from the archive, as installed by a user, against the same gateway.
            String python = clients.runPython(url);
            assertThat(python).as(python).contains("Applied(token=", "Value(value=b'from the wheel'", clients.venvDir().toString());
            String node = clients.runNode(url);
            assertThat(node).as(node).contains("applied from the tgz");
            assertThat(clients.project().resolve("node_modules/@fencegate/client/dist/index.js")).isRegularFile();
        } finally {
            serve.terminate(); // SIGTERM
        }
        serve.exit(60);
        assertThat(serve.output()).contains("fencegate stopping: draining requests in flight", "fencegate stopped")
                .doesNotContain("multiple SLF4J providers");

        // It wrote only under its working directory: the archive and HOME are as they were.
        assertThat(snapshot(dist.root)).isEqualTo(archiveBefore);
        try (Stream<Path> home = Files.list(dist.home)) {
            assertThat(home.toList()).isEmpty();
        }
        assertThat(work.resolve("data/h2")).isDirectory();
        assertThat(work.resolve("data/zookeeper")).isDirectory();
    }

    /** {@code artifact-version[-classifier].jar} appears in the notices as {@code :artifact:version}. */
    private static boolean listed(String notices, String jar) {
        String name = jar.substring(0, jar.length() - ".jar".length());
        for (int i = name.indexOf('-'); i > 0; i = name.indexOf('-', i + 1)) {
            if (i + 1 < name.length() && Character.isDigit(name.charAt(i + 1))) {
                Matcher m = Pattern.compile(Pattern.quote(":" + name.substring(0, i) + ":") + "([^ )]+)").matcher(notices);
                while (m.find()) {
                    if (name.substring(i + 1).startsWith(m.group(1))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static Map<String, Long> snapshot(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            Map<String, Long> files = new TreeMap<>();
            all.forEach(p -> files.put(root.relativize(p).toString(), p.toFile().length()));
            return files;
        }
    }

    static Path repoRoot() {
        return Path.of("").toAbsolutePath().getParent();
    }

    record Result(int exit, String out) {}

    private static Result run(ChildProcess.Launch launch, long seconds) throws Exception {
        try (ChildProcess p = launch.start()) {
            int exit = p.await(seconds);
            return new Result(exit, p.output());
        }
    }
}
