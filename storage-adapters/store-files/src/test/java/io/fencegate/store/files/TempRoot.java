package io.fencegate.store.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A directory of its own under the build's tmp dir, deleted with everything in it. */
final class TempRoot implements AutoCloseable {
    final Path path;

    TempRoot(String name) throws IOException {
        Path base = Path.of(System.getProperty("java.io.tmpdir"));
        Files.createDirectories(base);
        path = Files.createTempDirectory(base, name);
    }

    @Override
    public void close() throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> all = Files.walk(path)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
