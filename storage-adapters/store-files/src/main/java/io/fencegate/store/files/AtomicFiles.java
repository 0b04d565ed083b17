package io.fencegate.store.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Crash-atomic file replacement: write a temporary file beside the target, fsync it, rename it
 * over the target (atomic on POSIX), fsync the directory so the rename itself survives a crash.
 * A kill at any point leaves the old file or the new one, plus perhaps an orphan temporary,
 * which {@link #removeStaleTemporaries} clears later.
 *
 * <p>Public for one reason: a benchmark's "plain atomic write" baseline runs exactly the store's
 * write path minus the guard and the item lock, not a copy that could drift from it.
 */
public final class AtomicFiles {
    static final String TEMP_PREFIX = ".fg-tmp-";
    /** Temporaries younger than this may belong to a live writer in another process. */
    private static final Duration ORPHAN_AGE = Duration.ofMinutes(1);
    /**
     * What this process's temporaries are named after the prefix: its host's tag, its PID and its
     * start time, so a process that opens the store can tell a dead writer's temporary on this host
     * (a kill -9 mid-write, even one whose restart got the same PID, as PID 1 in a container does)
     * from a live one's, and delete it at once instead of a minute later.
     */
    private static final String HOST = hostTag();
    private static final String OWNER = HOST + "-" + ownerOf(ProcessHandle.current()) + "-";

    private AtomicFiles() {}

    /** Replaces {@code target} (somewhere below {@code root}) with {@code content}, crash-atomically. */
    public static void replace(Path root, Path target, byte[] content) throws IOException {
        Path temp = newTemporary(root, target);
        try {
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(content);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            moveIntoPlace(temp, target);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * The name of a new temporary file beside {@code target} (its directories below {@code root}
     * made), for a caller that creates it ({@code CREATE_NEW}), fills and fsyncs it, then
     * {@link #moveIntoPlace moves it into place} or deletes it.
     */
    static Path newTemporary(Path root, Path target) throws IOException {
        Path dir = target.getParent();
        createDirectoriesBelow(root, dir);
        return dir.resolve(TEMP_PREFIX + OWNER + UUID.randomUUID());
    }

    /** Renames the fsynced {@code temp} over {@code target} (atomic on POSIX) and fsyncs the directory. */
    static void moveIntoPlace(Path temp, Path target) throws IOException {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        fsyncDirectory(target.getParent());
    }

    /** Creates the missing directories between {@code root} (which must exist) and {@code dir}. */
    private static void createDirectoriesBelow(Path root, Path dir) throws IOException {
        if (dir.equals(root) || Files.isDirectory(dir)) {
            return;
        }
        createDirectoriesBelow(root, dir.getParent());
        try {
            Files.createDirectory(dir);
            fsyncDirectory(dir.getParent());
        } catch (FileAlreadyExistsException raced) {
            // another writer created it first
        }
    }

    /**
     * Whether the temporary {@code name} was made on this host by a process that is no longer
     * running: no process has its PID, or the one that has it started at another time.
     */
    static boolean writerIsGone(String name) {
        String[] parts = name.substring(TEMP_PREFIX.length()).split("-", 4);
        if (parts.length < 4 || !parts[0].equals(HOST)) {
            return false; // another host's, or named before temporaries carried their owner
        }
        long pid;
        try {
            pid = Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
            return false;
        }
        String owner = parts[1] + "-" + parts[2];
        return ProcessHandle.of(pid).map(p -> !p.isAlive() || !ownerOf(p).equals(owner)).orElse(true);
    }

    /** A process's PID and start time (hex milliseconds; 0 if the OS does not tell). */
    private static String ownerOf(ProcessHandle process) {
        long started = process.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
        return process.pid() + "-" + Long.toHexString(started);
    }

    /** Eight hex digits of the host's name: a temporary made on another host sharing the directory is never judged by PID. */
    private static String hostTag() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "unknown";
        }
        return String.format("%08x", host.hashCode());
    }

    private static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /**
     * Deletes temporaries left by crashed writers (older than a minute), and shows every directory
     * below {@code root} to {@code eachDirectory} (which may throw to stop the walk): opening a
     * store walks its tree once, for both. Another process may be writing into the same root
     * meanwhile: an entry that vanishes during the walk (a live writer's temporary, renamed into
     * place) is skipped, not an error, or opening a store would fail whenever another process writes.
     */
    static void removeStaleTemporaries(Path root, Consumer<Path> eachDirectory) throws IOException {
        FileTime cutoff = FileTime.from(Instant.now().minus(ORPHAN_AGE));
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                if (!dir.equals(root)) {
                    eachDirectory.accept(dir);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                String name = file.getFileName().toString();
                if (name.startsWith(TEMP_PREFIX)
                        && (attributes.lastModifiedTime().compareTo(cutoff) < 0 || writerIsGone(name))) {
                    Files.deleteIfExists(file);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException error) throws IOException {
                if (error instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw error;
            }
        });
    }
}
