package io.fencegate.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Folders a server of a test's own leaves behind. */
final class Folders {
    private Folders() {
    }

    /** Removes {@code p} and all below it, if it exists (a server that has stopped using it). */
    static void deleteTree(Path p) throws IOException {
        if (Files.exists(p)) {
            try (Stream<Path> all = Files.walk(p)) {
                for (Path x : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(x);
                }
            }
        }
    }

    /**
     * {@code chown -R user dir}: a database server runs as its own system user, never as root. That
     * user must also be able to reach it: every folder above it needs the x bit for others.
     */
    static void chown(String user, Path dir) throws IOException, InterruptedException {
        ChildProcess.run(30, List.of("chown", "-R", user, dir.toString()));
        try {
            ChildProcess.run(30, List.of("runuser", "-u", user, "--", "test", "-w", dir.toString()));
        } catch (IllegalStateException e) {
            throw new IllegalStateException("the " + user + " user cannot reach " + dir + ": a folder above it is closed to"
                    + " others (chmod o+x it, or choose a folder under /tmp)", e);
        }
    }
}
