package io.fencegate.store.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.UUID;

/**
 * How item file names treat letter case. {@link KeyPaths} keeps ASCII letters as they are
 * ({@link #PLAIN}), so on a case-insensitive file system (macOS's and Windows's defaults) the keys
 * {@code Stock} and {@code stock} would be one file under two item locks, and a write could
 * silently replace another. A store made on such a file system therefore names files
 * {@link #FOLDED}: capital letters percent-encoded too, so no two keys' names differ in case only.
 * The choice is made once, when the store's marker is written, and recorded in it
 * ({@link StoreMarker}), so a directory keeps its layout wherever it is moved; a {@code PLAIN}
 * store found on a case-insensitive file system is refused at open.
 */
enum NameCase {
    PLAIN, FOLDED;

    /** The marker's line that records {@link #FOLDED}. */
    static final String FOLDED_LINE = "names: case-folded";

    /**
     * The layout a store uses: {@code recorded} (null for a store being created) on a file
     * system that {@code caseInsensitive} says; throws if a {@code PLAIN} store is where letter
     * case does not tell names apart.
     */
    static NameCase decide(NameCase recorded, boolean caseInsensitive, Path root) {
        if (recorded == null) {
            return caseInsensitive ? FOLDED : PLAIN;
        }
        if (recorded == PLAIN && caseInsensitive) {
            throw new IllegalStateException("files store " + root + " is on a case-insensitive file system, but its"
                    + " item files were named on a case-sensitive one: keys such as 'Stock' and 'stock' would be one file"
                    + " under two locks. Move the directory to a case-sensitive file system (a new store made in an"
                    + " empty directory here names its files so that no two keys share one)");
        }
        return recorded;
    }

    /**
     * Whether {@code dir}'s file system ignores letter case: a probe file made in lower case is
     * looked up in upper case. It is named like a temporary, so a crash leaves nothing that the
     * next open does not clear.
     */
    static boolean caseInsensitive(Path dir) throws IOException {
        String name = AtomicFiles.TEMP_PREFIX + "case-" + UUID.randomUUID();
        Path probe = Files.createFile(dir.resolve(name));
        try {
            return Files.exists(dir.resolve(name.toUpperCase(Locale.ROOT)));
        } finally {
            Files.deleteIfExists(probe);
        }
    }
}
