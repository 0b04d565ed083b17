package io.fencegate.gateway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@code ./fencegate} runs Maven when a command's module needs building: a copy of the launcher
 * in an empty checkout, with a stand-in {@code mvn} first on the PATH that records how it was called.
 * Maven 3.8's console library writes a colour reset (ESC[0m) at exit even in batch mode; the
 * launcher must ask for no colours and no reset, or the user's terminal shows raw escapes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LauncherBuildTest {

    private static Path repoRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("fencegate")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no ./fencegate launcher above " + Path.of("").toAbsolutePath());
    }

    @Test
    void theLaunchersBuildAsksMavenForNoColourAndNoResetEscape(@TempDir Path dir) throws Exception {
        Path checkout = Files.createDirectories(dir.resolve("checkout"));
        Files.copy(repoRoot().resolve("fencegate"), checkout.resolve("fencegate"));
        Files.createDirectories(checkout.resolve("gateway/gateway-server"));
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path calls = dir.resolve("mvn-calls.txt");
        Path mvn = bin.resolve("mvn");
        Files.writeString(mvn, """
                #!/usr/bin/env bash
                echo "MAVEN_OPTS=$MAVEN_OPTS ARGS=$*" >> "%s"
                mkdir -p gateway/gateway-server/target/classes
                : > gateway/gateway-server/target/classpath.txt
                """.formatted(calls));
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        ProcessBuilder launcher = new ProcessBuilder(List.of(checkout.resolve("fencegate").toString(), "version"))
                .directory(dir.toFile());
        launcher.environment().keySet().removeIf(name -> name.startsWith("FENCEGATE_"));
        launcher.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        Process p = launcher.start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();

        String call = Files.readString(calls);
        assertThat(call).contains("-Djansi.noreset=true").contains("-Dstyle.color=never").contains("ARGS=-B ");
        assertThat(err).startsWith("fencegate: building the gateway").doesNotContain("\u001b[");
    }
}
