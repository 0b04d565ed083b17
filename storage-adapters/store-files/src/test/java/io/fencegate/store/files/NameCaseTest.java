package io.fencegate.store.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Letter case and item file names: a store made on a case-insensitive file system names its
 * files so no two keys differ in case only; a store named for a case-sensitive one is refused
 * there. This machine has no case-insensitive file system to mount (tmpfs casefold needs a
 * kernel with CONFIG_UNICODE, and there is no vfat), so the probe is run on the real, case-sensitive
 * directory and the decision is tested for both answers.
 */
class NameCaseTest {
    @TempDir
    Path dir;

    @Test
    void theProbeFindsThisDirectoryCaseSensitiveAndLeavesNothingBehind() throws Exception {
        assertThat(NameCase.caseInsensitive(dir)).isFalse();
        try (var left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void aNewStoreFoldsNamesOnlyWhereCaseIsIgnoredAndARecordedLayoutStays() {
        assertThat(NameCase.decide(null, true, dir)).isEqualTo(NameCase.FOLDED);
        assertThat(NameCase.decide(null, false, dir)).isEqualTo(NameCase.PLAIN);
        assertThat(NameCase.decide(NameCase.FOLDED, false, dir)).isEqualTo(NameCase.FOLDED);
        assertThat(NameCase.decide(NameCase.FOLDED, true, dir)).isEqualTo(NameCase.FOLDED);
        assertThat(NameCase.decide(NameCase.PLAIN, false, dir)).isEqualTo(NameCase.PLAIN);
    }

    @Test
    void aPlainStoreOnACaseInsensitiveFileSystemIsRefused() {
        assertThatThrownBy(() -> NameCase.decide(NameCase.PLAIN, true, dir))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("case-insensitive file system")
                .hasMessageContaining("'Stock' and 'stock' would be one file");
    }

    @Test
    void foldedNamesOfDistinctKeysNeverDifferInCaseOnly() {
        Random random = new Random(42);
        String alphabet = "aAbBzZ09_-.%/é";
        Map<String, String> byFoldedName = new HashMap<>();
        for (int i = 0; i < 50_000; i++) {
            StringBuilder key = new StringBuilder();
            for (int n = 1 + random.nextInt(6); n > 0; n--) {
                key.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String k = key.toString();
            if (k.startsWith("/") || k.endsWith("/") || k.contains("//")) {
                continue;
            }
            String folded = KeyPaths.itemFile(dir, k, NameCase.FOLDED).toString().toLowerCase(Locale.ROOT);
            String other = byFoldedName.putIfAbsent(folded, k);
            assertThat(other == null || other.equals(k)).as("'%s' and '%s' name %s", other, k, folded).isTrue();
        }
        assertThat(KeyPaths.itemFile(dir, "Stock", NameCase.PLAIN).getFileName().toString()).isEqualTo("Stock.fgi");
        assertThat(KeyPaths.itemFile(dir, "Stock", NameCase.FOLDED).getFileName().toString()).isEqualTo("%53tock.fgi");
    }

    @Test
    void aMarkerRecordingFoldedNamesOpensAFoldedStore() throws Exception {
        Files.writeString(dir.resolve(StoreMarker.FILE), "stock\n" + NameCase.FOLDED_LINE + "\n");
        try (FilesGuardedStore store = FilesGuardedStore.open(new FilesStoreOptions().root(dir).name("stock"))) {
            store.write("Stock", 1, "upper".getBytes(StandardCharsets.UTF_8)).toCompletableFuture().get();
            store.write("stock", 1, "lower".getBytes(StandardCharsets.UTF_8)).toCompletableFuture().get();
        }
        assertThat(dir.resolve("%53tock.fgi")).isRegularFile();
        assertThat(dir.resolve("stock.fgi")).isRegularFile();
    }

    @Test
    void aStoreMadeHereRecordsPlainNamesAndAnOldMarkerReadsAsPlain() throws Exception {
        Path fresh = Files.createDirectories(dir.resolve("fresh"));
        FilesGuardedStore.open(new FilesStoreOptions().root(fresh).name("fresh")).close();
        assertThat(Files.readString(fresh.resolve(StoreMarker.FILE))).isEqualTo("fresh\n");
        assertThat(StoreMarker.claim(fresh, "fresh")).isEqualTo(NameCase.PLAIN);
    }
}
