package io.fencegate.store.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Mutual exclusion per item across threads and processes: a key hashes to one of
 * {@value #STRIPES} stripes, each an in-JVM lock (shared by every store on the same root, since
 * the OS lock below is per process) plus an exclusive OS lock on {@code .fencegate-locks/<n>.lock}
 * under the root, which another process's store on the same directory also takes.
 */
final class ItemLocks {
    static final String DIR = ".fencegate-locks";
    private static final int STRIPES = 64;
    private static final ConcurrentHashMap<String, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();

    private final Path root;
    private final String rootId;

    ItemLocks(Path root) throws IOException {
        this.root = root;
        this.rootId = root.toRealPath().toString();
    }

    /** Runs {@code action} holding the item's stripe in this JVM and on the directory. */
    <T> T withLock(String key, IoAction<T> action) throws IOException {
        int stripe = Math.floorMod(key.hashCode(), STRIPES);
        ReentrantLock local = JVM_LOCKS.computeIfAbsent(rootId + "#" + stripe, k -> new ReentrantLock());
        local.lock();
        try {
            Path dir = root.resolve(DIR);
            if (!Files.isDirectory(dir)) {
                try {
                    Files.createDirectory(dir); // never the root itself: a missing root is an outage
                } catch (java.nio.file.FileAlreadyExistsException raced) {
                    // another writer made it first
                }
            }
            try (FileChannel ch = FileChannel.open(dir.resolve(stripe + ".lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock ignored = ch.lock()) {
                return action.run();
            }
        } finally {
            local.unlock();
        }
    }

    interface IoAction<T> {
        T run() throws IOException;
    }
}
