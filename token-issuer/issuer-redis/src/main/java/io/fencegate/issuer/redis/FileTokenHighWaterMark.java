package io.fencegate.issuer.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;

/**
 * A {@link TokenHighWaterMark} in one small file.
 *
 * <p>Writes go to a temp file that is fsync'd, renamed over the mark atomically, and the directory
 * fsync'd: a crash leaves the old mark or the new one, never a torn one. Raises are serialised by a
 * lock on a sibling {@code .lock} file (other processes) plus a JVM-wide lock per path (a
 * {@link FileLock} is held per JVM, so two instances in one process must not overlap on it), so
 * gateways on one host may share one mark file: the ranges they reserve never overlap. A file that
 * exists but cannot be parsed is refused, never read as 0.
 *
 * <p>The mark is its real path: a name given through symbolic links is followed to the file it
 * names (made later if missing), and that file is locked, read and replaced; the links stay
 * links. Otherwise two names of one mark would take two different locks, and the first raise
 * through a link would rename a new file over the link itself, splitting the mark in two. A mark
 * with a second hard link is refused for the same reason: a rename replaces one name only.
 *
 * <p>The file also holds the mark's {@link #identity()} ({@code id <uuid>}, its third line), made at
 * its first write: a copy of the file is the same mark (that is how a mark moves), a new file is
 * another. A file written before identities (two lines) gets one at its next write.
 */
public final class FileTokenHighWaterMark implements TokenHighWaterMark {

    private static final String HEADER = "fencegate-token-high-water-mark v1";
    private static final String ID = "id ";
    private static final Map<Path, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();
    private static final int MAX_LINKS = 40;

    private final Path file;
    private final Path lockFile;
    private final ReentrantLock jvmLock;
    /** The identity read with the mark (null: none known yet); guarded by the locks, like the file. */
    private String idRead;

    public FileTokenHighWaterMark(Path file) {
        try {
            this.file = realPath(file.toAbsolutePath());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the directory of the token high-water mark " + file, e);
        }
        this.lockFile = this.file.resolveSibling(this.file.getFileName() + ".lock");
        this.jvmLock = JVM_LOCKS.computeIfAbsent(this.file, p -> new ReentrantLock());
    }

    /**
     * The file {@code name} stands for: symbolic links followed, also a dangling one (its target
     * is the mark the first raise creates), the directory made if missing and named by its real path.
     */
    private static Path realPath(Path name) throws IOException {
        Path p = name;
        for (int hops = 0; hops < MAX_LINKS; hops++) {
            if (!Files.isSymbolicLink(p)) {
                Files.createDirectories(p.getParent());
                return p.getParent().toRealPath().resolve(p.getFileName());
            }
            p = p.getParent().toRealPath().resolve(Files.readSymbolicLink(p));
        }
        throw new IOException("more than " + MAX_LINKS + " symbolic links from " + name);
    }

    public Path file() {
        return file;
    }

    @Override
    public long read() {
        return whileFrozen(mark -> mark);
    }

    @Override
    public long raise(long floor, long block) {
        if (block <= 0) {
            throw new IllegalArgumentException("block must be positive, was " + block);
        }
        return whileFrozen(mark -> {
            long base = Math.max(mark, floor);
            if (base > Long.MAX_VALUE - block) {
                throw new IllegalStateException("fencing tokens exhausted: high-water mark " + base + " + " + block);
            }
            long raised = base + block;
            write(raised);
            return raised;
        });
    }

    @Override
    public <T> T whileFrozen(LongFunction<T> action) {
        jvmLock.lock();
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            // Closing the channel releases the lock, also when the action throws.
            FileLock held = channel.lock();
            assert held.isValid();
            return action.apply(readUnlocked());
        } catch (IOException e) {
            throw new UncheckedIOException("token high-water mark " + file + " unavailable", e);
        } finally {
            jvmLock.unlock();
        }
    }

    @Override
    public String identity() {
        return whileFrozen(mark -> {
            if (idRead == null) {
                write(mark);
            }
            return idRead;
        });
    }

    /**
     * Reads the mark, and its identity if the file has one. A missing file (a lost mark) keeps
     * the identity this instance already knew, so the file it writes next is still the same mark.
     */
    private long readUnlocked() throws IOException {
        if (!Files.exists(file)) {
            return 0;
        }
        refuseHardLinks();
        String[] lines = Files.readString(file, StandardCharsets.UTF_8).split("\n");
        if (lines.length < 2 || !lines[0].equals(HEADER)) {
            throw new IllegalStateException("token high-water mark " + file + " is not a mark file; refusing to guess");
        }
        try {
            long mark = Long.parseLong(lines[1].trim());
            if (mark < 0) {
                throw new NumberFormatException("negative");
            }
            if (lines.length > 2 && lines[2].startsWith(ID)) {
                idRead = lines[2].substring(ID.length()).trim();
            }
            return mark;
        } catch (NumberFormatException e) {
            throw new IllegalStateException("token high-water mark " + file + " is corrupt: '" + lines[1] + "'", e);
        }
    }

    /** A second name of the file would keep the old mark once a raise renames a new file over this one. */
    private void refuseHardLinks() throws IOException {
        Object links;
        try {
            links = Files.getAttribute(file, "unix:nlink");
        } catch (UnsupportedOperationException | IllegalArgumentException notUnix) {
            return;
        }
        if (links instanceof Integer n && n > 1) {
            throw new IllegalStateException("token high-water mark " + file + " has " + n + " hard links: a raise"
                    + " replaces one name only, so the others would keep an old mark; keep one name (a symbolic link is fine)");
        }
    }

    private void write(long mark) {
        Path temp = file.resolveSibling(file.getFileName() + ".tmp-" + UUID.randomUUID());
        String id = idRead != null ? idRead : UUID.randomUUID().toString();
        try {
            try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap((HEADER + "\n" + mark + "\n" + ID + id + "\n").getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
                out.force(true);
            }
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IllegalStateException("the file system of " + file + " cannot rename atomically", e);
            }
            syncDirectory();
            idRead = id;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write token high-water mark " + file, e);
        } finally {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignore) {
                // only a leftover temp file; the mark itself is already decided
            }
        }
    }

    /** The rename is durable only once the directory entry is on disk too. */
    private void syncDirectory() throws IOException {
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Some platforms (Windows) cannot open a directory; the rename is then as durable as the OS makes it.
            if (!System.getProperty("os.name", "").toLowerCase().contains("win")) {
                throw e;
            }
        }
    }

    @Override
    public String toString() {
        return "FileTokenHighWaterMark[" + file + "]";
    }
}
