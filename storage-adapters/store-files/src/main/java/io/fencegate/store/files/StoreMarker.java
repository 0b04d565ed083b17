package io.fencegate.store.files;

import io.fencegate.store.StoreClaimedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

/**
 * The owner of a store's directory: {@value #FILE} in the root holds the store's name. Item
 * files map from the bare key while locks ({@code store/key}) and API-key scopes are per store,
 * so two stores with different names on one directory would overwrite each other's items. The
 * first store to open a root writes the marker, and a store with another name is refused. No key
 * reaches the marker: {@link KeyPaths} encodes '.' and ends every item file in {@code .fgi}.
 *
 * <p>A second line, {@value NameCase#FOLDED_LINE}, records that the store's item files are named
 * so that letter case never tells two apart ({@link NameCase}), decided when the marker is made.
 *
 * <p>The marker appears whole or not at all: its content goes to a temporary file first, which
 * is then hard-linked to the marker's name ({@code link} fails if the name exists: of two
 * stores opening at once exactly one wins, and the other reads the winner's name).
 */
final class StoreMarker {
    static final String FILE = ".fencegate-store";
    private StoreMarker() {}

    /**
     * Claims {@code root} for {@code name}, or throws {@link StoreClaimedException} naming its
     * owner; answers how the store names its files.
     */
    static NameCase claim(Path root, String name) throws IOException {
        Path marker = root.resolve(FILE);
        boolean caseInsensitive = NameCase.caseInsensitive(root);
        if (!Files.exists(marker)) {
            Path temp = root.resolve(AtomicFiles.TEMP_PREFIX + UUID.randomUUID());
            String layout = NameCase.decide(null, caseInsensitive, root) == NameCase.FOLDED ? NameCase.FOLDED_LINE + "\n" : "";
            try {
                Files.write(temp, (name + "\n" + layout).getBytes(StandardCharsets.UTF_8));
                try (var ch = java.nio.channels.FileChannel.open(temp, java.nio.file.StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
                Files.createLink(marker, temp);
            } catch (FileAlreadyExistsException raced) {
                // another store claimed the root first: read whose it is below
            } finally {
                Files.deleteIfExists(temp);
            }
        }
        List<String> lines = new String(Files.readAllBytes(marker), StandardCharsets.UTF_8).strip().lines().toList();
        String owner = lines.isEmpty() ? "" : lines.get(0).strip();
        if (!owner.equals(name)) {
            throw new StoreClaimedException(name, owner, "directory " + root);
        }
        NameCase recorded = lines.stream().skip(1).anyMatch(l -> l.strip().equals(NameCase.FOLDED_LINE))
                ? NameCase.FOLDED : NameCase.PLAIN;
        return NameCase.decide(recorded, caseInsensitive, root);
    }
}
