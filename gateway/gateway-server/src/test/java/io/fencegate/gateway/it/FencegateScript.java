package io.fencegate.gateway.it;

import io.fencegate.testing.GatewayProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code <repo>/fencegate ...}: README's command, the launcher script and the runtime classpath it
 * builds ({@code target/classpath.txt}), not this test's classpath.
 */
final class FencegateScript {
    private FencegateScript() {
    }

    /** {@code FENCEGATE_NO_BUILD} keeps it from running Maven inside this Maven build, which has just built the classes. */
    static GatewayProcess launch(Path workDir, Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(repoRoot().resolve("fencegate").toString()));
        command.addAll(List.of(args));
        Map<String, String> all = new HashMap<>(env);
        all.putIfAbsent("FENCEGATE_NO_BUILD", "1");
        return GatewayProcess.command(workDir, all, command);
    }

    /** The checkout's root: the nearest folder up from here that holds the launcher. */
    static Path repoRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("fencegate")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no ./fencegate launcher above " + Path.of("").toAbsolutePath());
    }
}
