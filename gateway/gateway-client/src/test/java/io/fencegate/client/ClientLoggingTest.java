package io.fencegate.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client brings no logging surprise into an application: no SLF4J binding of its own, and the
 * SLF4J 2 API (httpclient5 asks for 1.7, whose {@code StaticLoggerBinder} lookup warns on stderr
 * next to any SLF4J 2 backend). A child JVM runs on the client's runtime classpath plus the binding
 * an application chooses, and makes a call through the default transport.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientLoggingTest {

    /** The child: one acquire against a port nothing listens on (the failure is expected). */
    public static void main(String[] args) {
        FencegateClient client = FencegateClient.builder("http://127.0.0.1:" + args[0] + "/")
                .timeout(Duration.ofSeconds(5)).build();
        try {
            client.acquire("x", Duration.ofSeconds(1), Duration.ZERO);
        } catch (RuntimeException expected) {
            System.out.println("call failed as expected");
        }
    }

    @Test
    void theRuntimeClasspathHasNoBindingAndTheSlf4j2Api() throws Exception {
        String runtime = Files.readString(Path.of("target", "runtime-classpath.txt")).strip();
        assertThat(runtime).doesNotContain("logback", "slf4j-simple", "slf4j-nop", "log4j-slf4j", "slf4j-reload4j", "slf4j-jdk14")
                .containsPattern("slf4j-api-2\\.[0-9.]+\\.jar").doesNotContainPattern("slf4j-api-1\\.");
        // Inside this build the parent pins the API; an application resolves it from this pom,
        // so the pom must name it itself (httpclient5's own pom names 1.7.36).
        assertThat(Files.readString(Path.of("pom.xml")))
                .containsPattern("<groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId></dependency>");
    }

    @Test
    void aClientCallPrintsNothingToStderrInAnApplicationWithAnSlf4j2Binding() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        String runtime = Files.readString(Path.of("target", "runtime-classpath.txt")).strip();
        String binding = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(p -> p.contains("slf4j-nop")).findFirst().orElseThrow();
        String classpath = String.join(File.pathSeparator, Path.of("target", "classes").toAbsolutePath().toString(),
                Path.of("target", "test-classes").toAbsolutePath().toString(), runtime, binding);
        Process child = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classpath, ClientLoggingTest.class.getName(), String.valueOf(closedPort)))
                .start();
        assertThat(child.waitFor(45, TimeUnit.SECONDS)).isTrue();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(err).as("the child's stderr").isEmpty();
        assertThat(out).contains("call failed as expected");
        assertThat(child.exitValue()).isZero();
    }
}
