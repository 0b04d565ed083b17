package io.fencegate.gateway.config;

import io.fencegate.spi.ExclusivePath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exclusive local state of one gateway ({@link ExclusivePath}), claimed before anything opens
 * and held until {@link #close()}: an exclusive OS lock on a lock file, {@value #LOCK_NAME} inside
 * a claimed directory or {@code <name>}{@value #LOCK_SUFFIX} beside a claimed file. The holder
 * writes its PID and start time into the lock file so a refused gateway can say who holds it.
 *
 * <p>The OS lock is what counts: a lock file left by a dead process is taken over, and it is never
 * deleted (a process that opened it before a delete would lock a file nobody else sees).
 *
 * <p>Within one JVM, an OS lock cannot tell two owners apart (a second {@link FileLock} on the
 * file throws {@link OverlappingFileLockException}, and closing any channel on it would drop the
 * first owner's lock), so claims in this JVM are kept in {@link #IN_THIS_JVM} and a second one
 * is refused before the file is opened at all.
 */
final class LocalClaims implements AutoCloseable {
    static final String LOCK_NAME = ".fencegate.lock";
    static final String LOCK_SUFFIX = ".fencegate.lock";
    private static final Map<Path, String> IN_THIS_JVM = new ConcurrentHashMap<>();

    /** A path to claim and where its config puts it ({@code issuer.dataDir}), or no key at all. */
    record Wanted(String at, ExclusivePath path) {}

    /** The claimed path, links resolved, and its lock file. */
    private record Target(Path claimed, Path lockFile) {}

    private record Held(Target target, ExclusivePath path, FileChannel channel) {}

    /** What a holder writes into its lock files, and what a refused start reads back. */
    private static final String ME = "pid " + ProcessHandle.current().pid() + ", started "
            + ProcessHandle.current().info().startInstant().map(Instant::toString).orElse("at an unknown time");

    private final List<Held> held;

    private LocalClaims(List<Held> held) {
        this.held = held;
    }

    /**
     * Claims every path, each lock file once (one gateway may name one path twice); on a refusal
     * releases what it took and throws {@link ConfigException} naming the path and its holder.
     * Paths whose lock file exists go first: a live holder always has one, so a refused start
     * fails before it has created anything, and it writes nothing until every claim holds.
     */
    static LocalClaims claim(List<Wanted> wanted) {
        List<Wanted> order = new ArrayList<>(wanted);
        order.sort(Comparator.comparing(w -> !Files.exists(lockFileAsGiven(w.path()))));
        List<Held> held = new ArrayList<>();
        try {
            for (Wanted w : order) {
                Target t = target(w.path());
                if (held.stream().noneMatch(h -> h.target().lockFile().equals(t.lockFile()))) {
                    held.add(take(w, t));
                }
            }
            byte[] me = (ME + "\n").getBytes(StandardCharsets.UTF_8);
            for (Held h : held) {
                h.channel().truncate(0);
                h.channel().write(ByteBuffer.wrap(me), 0);
                for (String sub : h.path().subdirectories()) {
                    Files.createDirectories(h.target().claimed().resolve(sub));
                }
            }
            return new LocalClaims(held);
        } catch (IOException e) {
            new LocalClaims(held).close();
            throw new UncheckedIOException("cannot claim local state: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            new LocalClaims(held).close();
            throw e;
        }
    }

    private static Path lockFileAsGiven(ExclusivePath p) {
        Path path = p.path().toAbsolutePath().normalize();
        return p.directory() ? path.resolve(LOCK_NAME) : path.resolveSibling(path.getFileName() + LOCK_SUFFIX);
    }

    /**
     * Where {@code p} really is (links resolved, so two names of one directory meet on one lock)
     * and its lock file. A missing claimed directory (or a claimed file's missing directory) is
     * created, so the first gateway on it has a place for its lock file.
     */
    private static Target target(ExclusivePath p) throws IOException {
        Path path = p.path().toAbsolutePath().normalize();
        Path dir = p.directory() ? path : path.getParent();
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
        }
        Path real = dir.toRealPath();
        return p.directory() ? new Target(real, real.resolve(LOCK_NAME))
                : new Target(real.resolve(path.getFileName()), real.resolve(path.getFileName() + LOCK_SUFFIX));
    }

    private static Held take(Wanted w, Target t) throws IOException {
        String other = IN_THIS_JVM.putIfAbsent(t.lockFile(), ME);
        if (other != null) {
            throw refused(w, t, other + ", this very process");
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(t.lockFile(), StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                // Something else in this JVM locks the file outside these claims. Closing this
                // channel would release its lock too, so the channel is left open on purpose.
                channel = null;
                throw refused(w, t, ME + ", this very process");
            }
            if (lock == null) {
                String owner = owner(channel);
                throw refused(w, t, owner.isEmpty() ? "a process that has not written its PID yet" : owner);
            }
            Held h = new Held(t, w.path(), channel);
            channel = null;
            return h;
        } catch (IOException | RuntimeException e) {
            IN_THIS_JVM.remove(t.lockFile(), ME);
            if (channel != null) {
                channel.close();
            }
            throw e;
        }
    }

    /** What the holder wrote into the lock file: {@code pid 1234, started 2026-…}. */
    private static String owner(FileChannel channel) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(256);
        channel.read(b, 0);
        return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8).strip();
    }

    private static ConfigException refused(Wanted w, Target t, String holder) {
        String problem = w.path().what() + " " + t.claimed() + " is in use by another fencegate (" + holder
                + "): one gateway at a time may use it; stop that one first, or give this one its own";
        return w.at() == null ? new ConfigException(problem, (Throwable) null) : new ConfigException(w.at(), problem);
    }

    /** Releases every claim (closing the channel drops the OS lock). The lock files stay. */
    @Override
    public void close() {
        for (int i = held.size() - 1; i >= 0; i--) {
            Held h = held.get(i);
            try {
                h.channel().close();
            } catch (IOException ignore) {
                // closing drops the lock whatever the outcome; nothing else to undo
            }
            IN_THIS_JVM.remove(h.target().lockFile());
        }
        held.clear();
    }
}
