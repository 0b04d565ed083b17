package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fencegate check} as the launcher runs it: a child JVM on the checker's runtime classpath
 * ({@code target/classpath.txt}). Its terminal shows the run, not logging-library warnings, and the
 * last line says where the results went.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CheckProcessTest {

    @Test
    void aRunPrintsNoSlf4jWarningsAndEndsWithTheAbsolutePathOfItsResults(@TempDir Path dir) throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        String classpath = Path.of("target", "classes").toAbsolutePath() + File.pathSeparator
                + Files.readString(Path.of("target", "classpath.txt")).strip();
        Process child = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classpath, CheckCommand.class.getName(), "--url", "http://127.0.0.1:" + closedPort,
                "--workload", "counter", "--seconds", "1", "--clients", "1", "--out", "results"))
                .directory(dir.toFile()).start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(child.getErrorStream()));
        String out = read(child.getInputStream());
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        // Nothing answers: no operation is acknowledged, which the checker calls proving nothing.
        assertThat(child.exitValue()).as(out + err.get()).isEqualTo(Report.PROVED_NOTHING);
        assertThat(err.get()).doesNotContain("SLF4J");
        assertThat(out).contains("PROVED NOTHING")
                .endsWith("history, summary and timeline in " + dir.toRealPath().resolve("results") + "\n");
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
