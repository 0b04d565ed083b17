package io.fencegate.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Local state a backend needs to itself: a directory or a database file that one process at a
 * time may open (an embedded ZooKeeper's data, an H2 file database). Its owner takes a
 * {@link LocalClaim} on it before it touches it, whatever called the owner; a server also checks
 * every exclusive path of its configuration before it opens anything, so a second server on the
 * same state fails before any of its backends has started.
 *
 * @param key            the setting that names the path, relative to its section ({@code dataDir},
 *                       {@code url}), or null when no setting does
 * @param what           what the path is, for messages: {@code H2 database}
 * @param path           the directory, or the file name the backend derives its files from
 * @param directory      true for a directory, which the claim creates if missing (its lock file
 *                       goes inside it); false for a file name (its lock file is a sibling)
 * @param subdirectories directories made inside a claimed directory once the claim holds
 * @param ownLocks       files beside the lock file that the backend itself locks while it has them
 *                       open ({@code main.mv.db}: H2's own lock): a claim also refuses while
 *                       another process holds one, so it does not rest on the lock file alone
 */
public record ExclusivePath(String key, String what, Path path, boolean directory, List<String> subdirectories,
        List<String> ownLocks) {

    public ExclusivePath {
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(path, "path");
        subdirectories = List.copyOf(subdirectories);
        ownLocks = List.copyOf(ownLocks);
    }

    /** A directory, claimed whole, with the subdirectories to make in it once it is ours. */
    public static ExclusivePath directory(String key, String what, Path dir, String... subdirectories) {
        return new ExclusivePath(key, what, dir, true, List.of(subdirectories), List.of());
    }

    /**
     * A file name (a database's base name): claimed through a lock file beside it, and through the
     * backend's own lock on each of {@code ownLocks} (names in the same directory).
     */
    public static ExclusivePath file(String key, String what, Path file, String... ownLocks) {
        return new ExclusivePath(key, what, file, false, List.of(), List.of(ownLocks));
    }
}
