package io.fencegate.store.files;

import io.fencegate.store.Applied;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.StoreUnavailableException;
import io.fencegate.store.StreamedWrite;
import io.fencegate.store.WriteResult;
import io.fencegate.store.backend.GuardDecision;
import io.fencegate.store.backend.GuardInputs;
import io.fencegate.store.backend.ItemState;
import io.fencegate.store.backend.StoreThreads;
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
 * <p>A directory belongs to one store name ({@link StoreMarker}): another name is refused at open,
 * and so is a directory inside another store's or holding another store's ({@link NestedStores}).
 * On a case-insensitive file system item files are named so that letter case never tells two
 * apart ({@link NameCase}).
 *
 * <p>A value may also arrive in pieces ({@link #openWrite}, {@link FilesStreamedWrite}): it is
 * written into a temporary file beside the item as it comes, and moved into place under the same
 * lock and guard as {@link #write}'s.
 *
 * <p>The root must exist: a missing root is an unmounted or lost volume, reported as
 * {@link StoreUnavailableException}, never silently recreated as an empty store. File I/O runs on
 * the store's own threads, never the caller's.
 */
public final class FilesGuardedStore implements GuardedStore {
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final Path root;
    private final FilesStoreOptions options;
    private final GuardRule rule;
    private final ItemLocks locks;
    private final ExecutorService io;
    private final NameCase names;
    private final StoreLimits limits;

    private FilesGuardedStore(Path root, FilesStoreOptions options, NameCase names) throws IOException {
        this.root = root;
        this.options = options;
        this.names = names;
        this.limits = options.limits().atMostKeyBytes(KeyPaths.maxKeyBytesUnder(root));
        this.rule = options.rule();
        this.locks = new ItemLocks(root);
        this.io = Executors.newFixedThreadPool(options.threads(),
                StoreThreads.daemons("fencegate-files-" + options.name() + "-" + INSTANCES.incrementAndGet()));
    }

    /** A store named {@code "default"} on {@code root} (which must exist), with default limits and 4 I/O threads. */
    public static FilesGuardedStore open(Path root, GuardRule rule) {
        return open(new FilesStoreOptions().root(root).rule(rule));
    }

    /**
     * A store on {@link FilesStoreOptions#root}, which must exist. The directory is claimed for
     * {@link FilesStoreOptions#name} ({@value StoreMarker#FILE}); a store with another name on it
     * is refused with {@link io.fencegate.store.StoreClaimedException}. Stores in several
     * processes on one directory must share a name. Options that do not
     * {@link FilesStoreOptions#validate validate} are refused with {@link IllegalArgumentException}.
     */
    public static FilesGuardedStore open(FilesStoreOptions options) {
        options.validate();
        Path root = options.root();
        FilesGuardedStore store;
        try {
            Path absolute = root.toAbsolutePath().normalize();
            store = new FilesGuardedStore(absolute, options, StoreMarker.claim(absolute, options.name()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open files store on " + root, e);
        }
        try {
            Path real = store.root.toRealPath();
            NestedStores.refuseInsideAnother(real, options.name());
            AtomicFiles.removeStaleTemporaries(real, dir -> NestedStores.refuseAroundAnother(real, options.name(), dir));
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
        return GuardInputs.checked(() -> limits.checkWrite(key, token, value), () -> guarded(key, token, value));
    }

    @Override
    public CompletionStage<WriteResult> delete(String key, long token) {
        return GuardInputs.checked(() -> limits.checkGuarded(key, token), () -> guarded(key, token, null));
    }

    /** Write and delete (a null value: a tombstone that keeps the token), under the item's lock. */
    private CompletionStage<WriteResult> guarded(String key, long token, byte[] value) {
        return run(key, () -> locks.withLock(key, () -> {
            Path file = pathOf(key);
            WriteResult decision = GuardDecision.write(rule, headerChecked(file, key), token);
            if (decision instanceof Applied) {
                AtomicFiles.replace(root, file, new ItemFile(key, token, token, value).encode());
            }
            return decision;
        }));
    }

    /**
     * No transactions across items here: each item is its own file, replaced by one atomic rename,
     * and no file system renames several files atomically. All or nothing across a kill -9 would
     * need a journal that every reader and writer of the directory replays first, in every
     * process; a store that promised it without one would leave half a transaction behind after a
     * crash. {@link #transact} and {@link #fencedReadAll} therefore fail with this reason.
     */
    @Override
    public String transactionsUnsupportedReason() {
        return "the files store has no transactions across items: each item is its own file, replaced by one"
                + " atomic rename, and several files cannot be replaced atomically across a crash;"
                + " use a SQL store (postgres or jdbc) for transactions";
    }

    @Override
    public boolean streamsValues() {
        return true;
    }

    @Override
    public CompletionStage<StreamedWrite> openWrite(String key, long token, long length) {
        return GuardInputs.checked(() -> {
            limits.checkGuarded(key, token);
            limits.checkValueLength(length);
        }, () -> CompletableFuture.completedFuture(new FilesStreamedWrite(this, key, token, limits.maxValueBytes())));
    }

    /** The name of a new temporary file beside {@code key}'s item file, its directories made; on a store thread. */
    Path temporaryFor(String key) throws IOException {
        checkRoot();
        return AtomicFiles.newTemporary(root, pathOf(key));
    }

    /**
     * A streamed write's last step, on a store thread: under the item's lock, judges the guard on
     * the item's header and, if it applies, renames the complete, fsynced {@code temp} over the item.
     */
    WriteResult moveIntoPlace(String key, long token, Path temp) throws IOException {
        return locks.withLock(key, () -> {
            Path file = pathOf(key);
            WriteResult decision = GuardDecision.write(rule, headerChecked(file, key), token);
            if (decision instanceof Applied) {
                AtomicFiles.moveIntoPlace(temp, file);
            }
            return decision;
        });
    }

    @Override
    public CompletionStage<ReadResult> read(String key) {
        return GuardInputs.checked(() -> limits.checkKey(key),
                () -> run(key, () -> GuardDecision.plainRead(state(readChecked(pathOf(key), key)))));
    }

    @Override
    public CompletionStage<ReadResult> fencedRead(String key, long token) {
        return GuardInputs.checked(() -> limits.checkGuarded(key, token), () -> run(key, () -> locks.withLock(key, () -> {
            Path file = pathOf(key);
            ItemState item = state(readChecked(file, key));
            ReadResult decision = GuardDecision.fencedRead(item, token);
            if (!(decision instanceof Stale) && GuardDecision.raisesFence(item, token)) {
                // a missing item gets a fence-only file
                AtomicFiles.replace(root, file, new ItemFile(key, item.token(), token, item.value()).encode());
            }
            return decision;
        })));
    }

    private static ItemState state(ItemFile file) {
        return file == null ? ItemState.ABSENT : new ItemState(file.token(), file.fence(), file.value());
    }

    /** The item file, refusing a path that runs through a symbolic link. */
    private Path pathOf(String key) throws IOException {
        Path file = KeyPaths.itemFile(root, key, names);
        for (Path p = file; !p.equals(root); p = p.getParent()) {
            if (Files.isSymbolicLink(p)) {
                throw new IllegalArgumentException("key '" + key + "' resolves through a symbolic link: refused");
            }
        }
        return file;
    }

    private ItemFile readChecked(Path file, String key) throws IOException {
        checkRoot();
        ItemFile item = ItemFile.read(file);
        if (item != null && !item.key().equals(key)) {
            throw new IOException("item file " + file + " holds another key (hash collision?)");
        }
        return item;
    }

    /** What a write judges the guard by: the item's token and fence, from its header alone. */
    private ItemState headerChecked(Path file, String key) throws IOException {
        checkRoot();
        ItemFile.Header header = ItemFile.readHeader(file);
        if (header == null) {
            return ItemState.ABSENT;
        }
        if (!header.key().equals(key)) {
            throw new IOException("item file " + file + " holds another key (hash collision?)");
        }
        return ItemState.of(header.token(), header.fence());
    }

    private void checkRoot() throws IOException {
        if (!Files.isDirectory(root)) {
            throw new IOException("files store root " + root + " is missing");
        }
    }

    /** Runs {@code action} on the store's threads; an I/O failure is the store being unavailable. */
    <T> CompletionStage<T> run(String key, ItemLocks.IoAction<T> action) {
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

    /** Lets operations in flight finish (bounded), then stops the I/O threads. */
    @Override
    public void close() {
        StoreThreads.shutdown(io);
    }
}
