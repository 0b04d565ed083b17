package io.fencegate.store.files;

import io.fencegate.store.StoreName;
import io.fencegate.store.StoreOptions;
import io.fencegate.store.backend.OptionChecks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Settings of a {@link FilesGuardedStore}: {@code new FilesStoreOptions().root(dir).name("reports")}.
 * Fluent setters, safe defaults (strict guard, default limits, 4 I/O threads); {@link #validate()}
 * checks everything at open, naming the option. The name is the directory's: it is claimed for
 * it at open, and stores in several processes on one directory must share it.
 */
public final class FilesStoreOptions extends StoreOptions<FilesStoreOptions> {
    private Path root;
    private int threads = 4;

    /** The store's directory; it must exist (a missing one is a lost volume, never recreated). Required. */
    public Path root() { return root; }
    public FilesStoreOptions root(Path root) { this.root = Objects.requireNonNull(root, "root"); return this; }

    /** Threads running the store's file I/O (reads, fsyncs, renames), off the callers' threads. */
    public int threads() { return threads; }
    public FilesStoreOptions threads(int threads) { this.threads = threads; return this; }

    /**
     * Checks every setting once, at open; the message names the option and its bad value.
     *
     * @throws IllegalArgumentException on the first problem
     */
    public FilesStoreOptions validate() {
        OptionChecks.required("root", root);
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("root: files store root " + root + " is not an existing directory");
        }
        StoreName.check(name());
        OptionChecks.inRange("threads", threads, 1, 1000);
        return this;
    }
}
