package io.fencegate.store.files;

import io.fencegate.store.StoreClaimedException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Store roots never nest. With {@code alpha} on {@code /t} and {@code beta} on {@code /t/sub},
 * alpha's key {@code sub/k} and beta's key {@code k} are one file under two item locks (each
 * store locks inside its own root, {@link ItemLocks}), so two writes could both be applied and
 * one silently replace the other.
 *
 * <p>Checked at open, once the root's own marker ({@link StoreMarker}) is in place, on the root's
 * real path (links resolved): another store's marker in any directory above the root, or in any
 * directory below it, refuses the store. Below is the whole tree, seen in the walk that opening
 * makes anyway ({@link AtomicFiles#removeStaleTemporaries}); no key reaches a marker's name, so a
 * marker below the root is always another store's. Markers stay on disk, so this holds across
 * processes whether or not the other store is open; and each store writes its marker before it
 * looks, so of two nested stores opening at once the later to look sees the other's marker.
 */
final class NestedStores {
    private static final String WHY = " (stores must not nest: a key of the outer store would name a file of the"
            + " inner one, under another lock); give each store a directory outside every other store's";

    private NestedStores() {}

    /** Refuses {@code root} (a real path) if a directory above it belongs to a store. */
    static void refuseInsideAnother(Path root, String name) {
        for (Path above = root.getParent(); above != null; above = above.getParent()) {
            if (Files.isRegularFile(above.resolve(StoreMarker.FILE))) {
                String owner = owner(above);
                throw new StoreClaimedException(name, owner, "directory " + root, "it lies inside directory " + above
                        + " of store '" + owner + "'" + WHY);
            }
        }
    }

    /** Refuses {@code root} when {@code dir}, a directory below it, belongs to a store. */
    static void refuseAroundAnother(Path root, String name, Path dir) {
        if (Files.isRegularFile(dir.resolve(StoreMarker.FILE))) {
            String owner = owner(dir);
            throw new StoreClaimedException(name, owner, "directory " + root, "directory " + dir
                    + " inside it belongs to store '" + owner + "'" + WHY);
        }
    }

    private static String owner(Path dir) {
        try {
            return new String(Files.readAllBytes(dir.resolve(StoreMarker.FILE)), StandardCharsets.UTF_8)
                    .strip().lines().findFirst().orElse("");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the store marker in " + dir, e);
        }
    }
}
