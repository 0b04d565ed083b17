package io.fencegate.dist;

import io.fencegate.testing.ChildProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The release archive unpacked into a temp folder, and a bare environment to run it in: a PATH
 * holding only a symbolic link to this JVM's {@code java}, and an empty HOME (no ~/.m2, no Maven).
 */
final class Unpacked implements AutoCloseable {
    final Path root;
    final Path home;
    final Path bin;
    final Path onlyJava;
    private final Path temp;

    private Unpacked(Path temp, Path home, Path onlyJava) {
        this.temp = temp;
        this.root = temp.resolve("fencegate-" + System.getProperty("fencegate.version"));
        this.home = home;
        this.bin = root.resolve("bin/fencegate");
        this.onlyJava = onlyJava;
    }

    static Path archive() {
        return Path.of(System.getProperty("fencegate.archive"));
    }

    static Unpacked tarball() throws Exception {
        Path temp = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "dist");
        Process tar = new ProcessBuilder("tar", "-xzf", archive().toString(), "-C", temp.toString())
                .redirectErrorStream(true).start();
        if (!tar.waitFor(120, TimeUnit.SECONDS) || tar.exitValue() != 0) {
            throw new IllegalStateException("tar failed: " + new String(tar.getInputStream().readAllBytes()));
        }
        Path home = Files.createDirectories(temp.resolve("home"));
        Path onlyJava = Files.createDirectories(temp.resolve("path"));
        Files.createSymbolicLink(onlyJava.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));
        return new Unpacked(temp, home, onlyJava);
    }

    Path work(String name) throws IOException {
        return Files.createDirectories(temp.resolve(name));
    }

    /** {@code command args} run from {@code dir} with nothing but PATH (java only) and HOME set. */
    ChildProcess.Launch bare(Path dir, String... command) {
        return ChildProcess.command(Path.of(command[0]).getFileName().toString(), List.of(command)).directory(dir)
                .withoutEnv("").env(Map.of("PATH", onlyJava.toString(), "HOME", home.toString()));
    }

    @Override
    public void close() throws IOException {
        try (Stream<Path> all = Files.walk(temp)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
