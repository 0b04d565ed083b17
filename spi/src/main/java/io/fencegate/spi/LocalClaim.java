package io.fencegate.spi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One process's claim on an {@link ExclusivePath}, taken by the owner of the state before it
 * touches it and held until {@link #close()}: an exclusive OS lock on a lock file,
 * {@value #LOCK_NAME} inside a claimed directory or {@code <name>}{@value #LOCK_SUFFIX} beside a
 * claimed file. The holder writes its PID, start time and a claim id into the lock file, so a
 * refused start can say who holds it.
 *
 * <p>The lock file is not enough on its own, because anyone can delete it under a live holder; a
 * newcomer would then create a new one and lock that. So:
 * <ul>
 *   <li>the holder checks every {@value #CHECK_MILLIS} ms that its lock file is still the file it
 *       locked; a deleted one it re-creates and locks again, and when it finds another process's
 *       lock file in its place, its claim is lost: it logs so and runs its owner's loss action
 *       (an embedded ZooKeeper stops), failing closed;</li>
 *   <li>a newcomer that had to create the lock file beside existing data (it was deleted, or the
 *       data is older than claims) waits {@link #GRACE} before it returns, so a live holder has
 *       noticed and stopped before the newcomer reads the data, then checks its lock file again;</li>
 *   <li>{@link #check} also tries {@link ExclusivePath#ownLocks()}, the backend's own locks on its
 *       data files (H2 locks its {@code .mv.db}), which cannot be deleted without the data. A
 *       claim does not: the backend's own lock refuses a second process anyway, and in this process
 *       the backend may already have the file open for another user of it (an SQL issuer in the
 *       store's H2 file), which must not be refused (nor its lock dropped by closing a probe).</li>
 * </ul>
 *
 * <p>A lock file is never deleted by a claim (a process that opened it before the delete would
 * lock a file nobody else sees). Within one JVM an OS lock cannot tell two owners apart (a second
 * {@link FileLock} on the file throws {@link OverlappingFileLockException}, and closing any channel
 * on it would drop the first owner's lock), so claims in this JVM are kept in a map and a second
 * one is refused before the file is opened at all.
 */
public final class LocalClaim implements AutoCloseable {
    public static final String LOCK_NAME = ".fencegate.lock";
    public static final String LOCK_SUFFIX = ".fencegate.lock";
    static final long CHECK_MILLIS = 250;
    /** How long a newcomer waits after creating a lock file beside existing data: many checks of a live holder. */
    public static final Duration GRACE = Duration.ofSeconds(3);

    private static final System.Logger LOG = System.getLogger(LocalClaim.class.getName());
    private static final Map<Path, LocalClaim> IN_THIS_JVM = new ConcurrentHashMap<>();
    private static final String ME = "pid " + ProcessHandle.current().pid() + ", started "
            + ProcessHandle.current().info().startInstant().map(Instant::toString).orElse("at an unknown time");
    private static final ScheduledExecutorService WATCH = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fencegate-claim-watch");
        t.setDaemon(true);
        return t;
    });

    private final ExclusivePath wanted;
    private final Path claimed;
    private final Path lockFile;
    private final Consumer<String> onLost;
    private final String id = UUID.randomUUID().toString();
    private FileChannel channel;
    private Object fileKey;
    private ScheduledFuture<?> watch;
    private volatile boolean lost;
    private boolean closed;

    private LocalClaim(ExclusivePath wanted, Path claimed, Path lockFile, Consumer<String> onLost) {
        this.wanted = wanted;
        this.claimed = claimed;
        this.lockFile = lockFile;
        this.onLost = onLost;
    }

    /**
     * Claims {@code path} for this process, or throws {@link ClaimRefusedException} naming the
     * holder. A missing claimed directory (or a claimed file's missing directory) is created, so the
     * first owner has a place for its lock file; the subdirectories are made once the claim holds.
     *
     * @param onLost run (once, on the claim's own thread) if another process's lock file is found
     *               in this one's place: the owner must then stop using the state
     */
    public static LocalClaim take(ExclusivePath path, Consumer<String> onLost) {
        Objects.requireNonNull(onLost, "onLost");
        Path[] target;
        try {
            target = target(path, true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot claim " + path.what() + " " + path.path() + ": " + e.getMessage(), e);
        }
        LocalClaim claim = new LocalClaim(path, target[0], target[1], onLost);
        LocalClaim other = IN_THIS_JVM.putIfAbsent(claim.lockFile, claim);
        if (other != null) {
            throw new ClaimRefusedException(path, claim.claimed, ME + ", this very process");
        }
        try {
            claim.lock();
            return claim;
        } catch (IOException e) {
            claim.close();
            throw new UncheckedIOException("cannot claim " + path.what() + " " + claim.claimed + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            claim.close();
            throw e;
        }
    }

    /**
     * Refuses {@code path} if a claim on it, or one of its {@link ExclusivePath#ownLocks()}, is
     * held now; creates nothing. A server calls this for every path before it starts anything;
     * the owners' own claims, taken later, are what hold.
     */
    public static void check(ExclusivePath path) {
        try {
            Path[] target = target(path, false);
            if (target == null) {
                return;
            }
            if (IN_THIS_JVM.containsKey(target[1])) {
                throw new ClaimRefusedException(path, target[0], ME + ", this very process");
            }
            if (Files.exists(target[1])) {
                probe(path, target[0], target[1], true);
            }
            checkOwnLocks(path, target[0]);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot check " + path.what() + " " + path.path() + ": " + e.getMessage(), e);
        }
    }

    /** Where the state really is (links resolved). */
    public Path claimed() {
        return claimed;
    }

    public Path lockFile() {
        return lockFile;
    }

    /** False once another process's lock file was found in this one's place (or after close). */
    public boolean isHeld() {
        return !lost && !isClosed();
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    private void lock() throws IOException {
        boolean existed = Files.exists(lockFile);
        boolean dataBeside = hasDataBeside();
        Locked locked;
        try {
            locked = openLocked(lockFile);
        } catch (OverlappingFileLockException e) {
            throw new ClaimRefusedException(wanted, claimed, ME + ", this very process");
        }
        if (locked.lock() == null) {
            String owner = owner(locked.channel());
            locked.channel().close();
            throw new ClaimRefusedException(wanted, claimed, owner.isEmpty() ? "a process that has not written its PID yet" : owner);
        }
        channel = locked.channel();
        fileKey = locked.key();
        write();
        if (!existed && dataBeside) {
            LOG.log(Level.WARNING, "{0} {1} has data but had no lock file {2} (deleted, or the data predates claims): "
                    + "waiting {3} s, so that a process that still uses it notices and stops, before using it",
                    wanted.what(), claimed, lockFile, GRACE.toSeconds());
            sleep(GRACE);
            if (!thisIsMyFile()) {
                throw new ClaimRefusedException(wanted, claimed, "a process that took the lock file " + lockFile
                        + " back while this one waited");
            }
        }
        if (wanted.directory()) {
            for (String sub : wanted.subdirectories()) {
                Files.createDirectories(claimed.resolve(sub));
            }
        }
        watch = WATCH.scheduleWithFixedDelay(this::verify, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Anything beside the lock file: in a claimed directory, or a claimed file's own files. */
    private boolean hasDataBeside() throws IOException {
        if (wanted.directory()) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(claimed)) {
                for (Path e : entries) {
                    if (!e.getFileName().toString().equals(LOCK_NAME)) {
                        return true;
                    }
                }
            }
            return false;
        }
        String base = claimed.getFileName().toString();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(claimed.getParent(), base + "*")) {
            for (Path e : entries) {
                if (!e.equals(lockFile)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Writes who holds the claim; the claim id tells this holder's file from a newcomer's. */
    private void write() throws IOException {
        byte[] me = (ME + ", claim " + id + "\n").getBytes(StandardCharsets.UTF_8);
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(me), 0);
    }

    /**
     * The lock file's name still leads to the file this claim locked. Only by its file key (a
     * stat of the name): opening the file again and closing it would drop this process's lock
     * (POSIX releases every lock of a process on a file when any of its descriptors closes).
     */
    private boolean thisIsMyFile() {
        try {
            return Objects.equals(fileKeyOf(lockFile), fileKey);
        } catch (IOException e) {
            return false;
        }
    }

    /** An open lock file, its OS lock (null: someone else holds it) and the file key the name had. */
    private record Locked(FileChannel channel, FileLock lock, Object key) {}

    /**
     * Opens and tries to lock {@code file}, knowing which file it opened: a missing one is made
     * under a name of its own, locked, and linked into place (so no one else's file can slip in
     * between); an existing one is stat'ed before and after, and retried if its name moved
     * meanwhile. Throws {@link OverlappingFileLockException} (channel left open on purpose: closing
     * it would drop that other lock) when this JVM locks the file outside claims.
     */
    private static Locked openLocked(Path file) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Object before;
            try {
                before = fileKeyOf(file);
            } catch (NoSuchFileException missing) {
                Locked made = createLocked(file);
                if (made != null) {
                    return made;
                }
                continue; // another process made it meanwhile: lock that one
            }
            FileChannel c;
            try {
                c = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            } catch (NoSuchFileException gone) {
                continue;
            }
            FileLock lock = c.tryLock();
            Object after;
            try {
                after = fileKeyOf(file);
            } catch (NoSuchFileException gone) {
                after = null;
            }
            if (before.equals(after)) {
                return new Locked(c, lock, before);
            }
            c.close();
            if (attempt > 10) {
                throw new IOException("the lock file " + file + " keeps being replaced");
            }
        }
    }

    /** A new lock file at {@code file}, locked before it has that name; null if one appeared meanwhile. */
    private static Locked createLocked(Path file) throws IOException {
        Path own = file.resolveSibling(file.getFileName() + ".new-" + UUID.randomUUID());
        FileChannel c = FileChannel.open(own, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            FileLock lock = c.lock();
            Object key = fileKeyOf(own);
            try {
                Files.createLink(file, own);
            } catch (java.nio.file.FileAlreadyExistsException taken) {
                c.close();
                return null;
            }
            return new Locked(c, lock, key);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        } finally {
            Files.deleteIfExists(own);
        }
    }

    /**
     * The watch: the lock file must still be the one this claim locked (its inode cannot be
     * reused while this claim keeps it open). A deleted one is re-created and locked again; one
     * another process holds means the claim is lost.
     */
    private synchronized void verify() {
        if (closed || lost) {
            return;
        }
        try {
            Object now;
            try {
                now = fileKeyOf(lockFile);
            } catch (NoSuchFileException deleted) {
                now = null;
            }
            if (Objects.equals(now, fileKey)) {
                return;
            }
            Locked locked = openLocked(lockFile);
            if (locked.lock() == null) {
                String owner = owner(locked.channel());
                locked.channel().close();
                lose("its lock file " + lockFile + " was replaced, and is now held by " + (owner.isEmpty() ? "another process" : owner));
                return;
            }
            FileChannel old = channel;
            channel = locked.channel();
            fileKey = locked.key();
            write();
            old.close();
            LOG.log(Level.WARNING, "the lock file {0} of {1} {2} was deleted or replaced under this process; took it again",
                    lockFile, wanted.what(), claimed);
        } catch (IOException | RuntimeException e) {
            lose("its lock file " + lockFile + " cannot be checked (" + e + ")");
        }
    }

    private void lose(String why) {
        lost = true;
        watch.cancel(false);
        String message = wanted.what() + " " + claimed + " is no longer claimed by this process: " + why
                + "; stopping its use of it";
        LOG.log(Level.ERROR, message);
        try {
            onLost.accept(message);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "stopping after a lost claim failed", e);
        }
    }

    /** Releases the claim (closing the channel drops the OS lock). The lock file stays. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (watch != null) {
            watch.cancel(false);
        }
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignore) {
                // closing drops the lock whatever the outcome; nothing else to undo
            }
        }
        IN_THIS_JVM.remove(lockFile, this);
    }

    /**
     * The claimed path (links resolved) and its lock file; with {@code create}, a missing directory
     * is made, else a missing one answers null (nothing there to check).
     */
    private static Path[] target(ExclusivePath p, boolean create) throws IOException {
        Path path = p.path().toAbsolutePath().normalize();
        Path dir = p.directory() ? path : path.getParent();
        if (!Files.isDirectory(dir)) {
            if (!create) {
                return null;
            }
            Files.createDirectories(dir);
        }
        Path real = dir.toRealPath();
        return p.directory() ? new Path[] {real, real.resolve(LOCK_NAME)}
                : new Path[] {real.resolve(path.getFileName()), real.resolve(path.getFileName() + LOCK_SUFFIX)};
    }

    /** Refuses each of the backend's own lock files that another process (or this one) holds. */
    private static void checkOwnLocks(ExclusivePath p, Path claimed) throws IOException {
        Path dir = p.directory() ? claimed : claimed.getParent();
        for (String name : p.ownLocks()) {
            Path f = dir.resolve(name);
            if (Files.exists(f)) {
                probe(p, claimed, f, false);
            }
        }
    }

    /** Takes and drops the OS lock on {@code file} (never creating it), refusing if anyone holds it. */
    private static void probe(ExclusivePath p, Path claimed, Path file, boolean lockFile) throws IOException {
        FileChannel c;
        try {
            c = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (NoSuchFileException gone) {
            return;
        }
        FileLock lock;
        try {
            lock = c.tryLock();
        } catch (OverlappingFileLockException e) {
            // Locked in this JVM: closing this channel would drop that lock, so it stays open.
            throw new ClaimRefusedException(p, claimed, ME + ", this very process");
        }
        try {
            if (lock == null) {
                String owner = lockFile ? owner(c) : "";
                throw new ClaimRefusedException(p, claimed, !owner.isEmpty() ? owner
                        : lockFile ? "a process that has not written its PID yet" : "a process that holds its own lock on " + file);
            }
            lock.release();
        } finally {
            c.close();
        }
    }

    /** What the holder wrote into the lock file: {@code pid 1234, started 2026-…}, without the claim id. */
    private static String owner(FileChannel channel) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(256);
        channel.read(b, 0);
        String text = new String(b.array(), 0, b.position(), StandardCharsets.UTF_8).strip();
        int id = text.indexOf(", claim ");
        return id < 0 ? text : text.substring(0, id);
    }

    private static Object fileKeyOf(Path file) throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        return a.fileKey() != null ? a.fileKey() : a.creationTime();
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while claiming local state", e);
        }
    }

    @Override
    public String toString() {
        return "LocalClaim[" + wanted.what() + " " + claimed + "]";
    }
}
