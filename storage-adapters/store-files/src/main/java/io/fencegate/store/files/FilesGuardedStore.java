package io.fencegate.store.files;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Missing;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.StoreUnavailableException;
import io.fencegate.store.WriteResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A guarded store on a directory: one file per item holding token, fence, key and value
 * ({@link ItemFile}), replaced crash-atomically ({@link AtomicFiles}), with each item's
 * check-and-replace serialised across threads and processes ({@link ItemLocks}). Keys map to paths
 * that cannot leave the root ({@link KeyPaths}); a symbolic link met on the way is refused.
 *
 * <p>A directory belongs to one store name ({@link StoreMarker}): another name is refused at open.
 *
 * <p>The root must exist: a missing root is an unmounted or lost volume, reported as
 * {@link StoreUnavailableException}, never silently recreated as an empty store. File I/O runs on
 * the store's own threads, never the caller's.
 */
public final class FilesGuardedStore implements GuardedStore {
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final Path root;
    private final GuardRule rule;
    private final StoreLimits limits;
    private final ItemLocks locks;
    private final ExecutorService io;

    private FilesGuardedStore(Path root, GuardRule rule, StoreLimits limits, int threads) throws IOException {
        this.root = root;
        this.rule = rule;
        this.limits = limits;
        this.locks = new ItemLocks(root);
        int instance = INSTANCES.incrementAndGet();
        AtomicInteger n = new AtomicInteger();
        this.io = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "fencegate-files-" + instance + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** A store named {@code "default"} on {@code root} (which must exist), with default limits and 4 I/O threads. */
    public static FilesGuardedStore open(Path root, GuardRule rule) {
        return open(root, "default", rule);
    }

    /** A store named {@code name} on {@code root}, with default limits and 4 I/O threads. */
    public static FilesGuardedStore open(Path root, String name, GuardRule rule) {
        return open(root, name, rule, StoreLimits.DEFAULT, 4);
    }

    public static FilesGuardedStore open(Path root, GuardRule rule, StoreLimits limits, int ioThreads) {
        return open(root, "default", rule, limits, ioThreads);
    }

    /**
     * A store named {@code name} (1-64 of A-Z a-z 0-9 _ . -) on {@code root}, which must exist.
     * The directory is claimed for the name ({@value StoreMarker#FILE}); a store with another name
     * on it is refused with {@link io.fencegate.store.StoreClaimedException}. Stores in several
     * processes on one directory must share a name.
     */
    public static FilesGuardedStore open(Path root, String name, GuardRule rule, StoreLimits limits, int ioThreads) {
        StoreMarker.checkName(name);
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("files store root " + root + " is not an existing directory");
        }
        FilesGuardedStore store;
        try {
            store = new FilesGuardedStore(root.toAbsolutePath().normalize(), rule, limits, ioThreads);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open files store on " + root, e);
        }
        try {
            StoreMarker.claim(store.root, name);
            AtomicFiles.removeStaleTemporaries(store.root);
            return store;
        } catch (IOException e) {
            store.close();
            throw new UncheckedIOException("cannot open files store on " + root, e);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    @Override
    public CompletionStage<WriteResult> write(String key, long token, byte[] value) {
        return guarded(key, token, () -> {
            limits.checkValue(value);
            return value;
        });
    }

    @Override
    public CompletionStage<WriteResult> delete(String key, long token) {
        return guarded(key, token, () -> null);
    }

    private CompletionStage<WriteResult> guarded(String key, long token, java.util.function.Supplier<byte[]> value) {
        byte[] v;
        try {
            limits.checkKey(key);
            StoreLimits.checkToken(token);
            v = value.get();
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return run(key, () -> locks.withLock(key, () -> {
            Path file = pathOf(key);
            ItemFile current = readChecked(file, key);
            long currentToken = current == null ? 0 : current.token();
            long fence = current == null ? 0 : current.fence();
            if (!rule.admits(token, currentToken, fence)) {
                return new Stale(currentToken, fence, token);
            }
            AtomicFiles.replace(root, file, new ItemFile(key, token, token, v).encode());
            return new Applied(currentToken);
        }));
    }

    @Override
    public CompletionStage<ReadResult> read(String key) {
        try {
            limits.checkKey(key);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return run(key, () -> result(readChecked(pathOf(key), key), -1));
    }

    @Override
    public CompletionStage<ReadResult> fencedRead(String key, long token) {
        try {
            limits.checkKey(key);
            StoreLimits.checkToken(token);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return run(key, () -> locks.withLock(key, () -> {
            Path file = pathOf(key);
            ItemFile current = readChecked(file, key);
            long currentToken = current == null ? 0 : current.token();
            long fence = current == null ? 0 : current.fence();
            if (fence > token) {
                return new Stale(currentToken, fence, token);
            }
            if (fence < token) { // raise the fence; a missing item gets a fence-only file
                current = new ItemFile(key, currentToken, token, current == null ? null : current.value());
                AtomicFiles.replace(root, file, current.encode());
            }
            return result(current, token);
        }));
    }

    private static ReadResult result(ItemFile item, long fenceOverride) {
        if (item == null) {
            return new Missing(0, Math.max(0, fenceOverride));
        }
        long fence = fenceOverride > 0 ? fenceOverride : item.fence();
        return item.value() == null ? new Missing(item.token(), fence) : new Found(item.value(), item.token(), fence);
    }

    /** The item file, refusing a path that runs through a symbolic link. */
    private Path pathOf(String key) throws IOException {
        Path file = KeyPaths.itemFile(root, key);
        for (Path p = file; !p.equals(root); p = p.getParent()) {
            if (Files.isSymbolicLink(p)) {
                throw new IllegalArgumentException("key '" + key + "' resolves through a symbolic link: refused");
            }
        }
        return file;
    }

    private ItemFile readChecked(Path file, String key) throws IOException {
        if (!Files.isDirectory(root)) {
            throw new IOException("files store root " + root + " is missing");
        }
        ItemFile item = ItemFile.read(file);
        if (item != null && !item.key().equals(key)) {
            throw new IOException("item file " + file + " holds another key (hash collision?)");
        }
        return item;
    }

    private <T> CompletionStage<T> run(String key, ItemLocks.IoAction<T> action) {
        try {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return action.run();
                } catch (IOException e) {
                    throw new StoreUnavailableException("files store " + root + ": " + e.getMessage(), e);
                }
            }, io);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("files store " + root + " is closed", e));
        }
    }

    @Override
    public GuardRule rule() {
        return rule;
    }

    @Override
    public StoreLimits limits() {
        return limits;
    }

    /** Lets operations in flight finish, then stops the I/O threads. */
    @Override
    public void close() {
        io.shutdown();
        try {
            io.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
