package io.fencegate.store.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.ReadResult;
import io.fencegate.store.StoreClaimedException;
import io.fencegate.store.WriteResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two stores whose roots nest ({@code alpha} on {@code /t}, {@code beta} on {@code /t/sub}) would
 * see one file under two keys ({@code alpha}'s {@code sub/k}, {@code beta}'s {@code k}) and two
 * locks, so concurrent writes could both be acknowledged while one replaces the other.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NestedRootsIT {
    private static final int ROUNDS = 300;
    private TempRoot t;

    @BeforeEach
    void createRoot() throws Exception {
        t = new TempRoot("nested");
    }

    @AfterEach
    void deleteRoot() throws Exception {
        t.close();
    }

    private static FilesGuardedStore open(Path root, String name) {
        return FilesGuardedStore.open(new FilesStoreOptions().root(root).name(name).rule(GuardRule.STRICT));
    }

    /**
     * Either the second store is refused at open, or, were nested roots ever let through, in every
     * round both write one file at once under their own key and an acknowledged write must still
     * be there afterwards. (Before roots were checked, 297 of 300 rounds lost one.)
     */
    @Test
    void nestedRootsNeverLoseAnAcknowledgedWrite() throws Exception {
        Path sub = Files.createDirectories(t.path.resolve("sub"));
        List<String> lost = new ArrayList<>();
        try (FilesGuardedStore beta = open(sub, "beta")) {
            FilesGuardedStore alpha;
            try {
                alpha = open(t.path, "alpha");
            } catch (StoreClaimedException refused) {
                assertThat(refused).hasMessageContaining("'alpha'").hasMessageContaining("'beta'");
                return;
            }
            try (alpha) {
                rounds(alpha, beta, lost);
            }
        }
        assertThat(lost).as("%d of %d rounds lost an acknowledged write", lost.size(), ROUNDS).isEmpty();
    }

    @Test
    void aRootInsideAnotherStoresIsRefusedAtOpenNamingBoth() throws Exception {
        Path sub = Files.createDirectories(t.path.resolve("a/b/sub"));
        try (FilesGuardedStore alpha = open(t.path, "alpha")) {
            assertThatThrownBy(() -> open(sub, "beta"))
                    .isInstanceOf(StoreClaimedException.class)
                    .hasMessageStartingWith("store 'beta' cannot use directory " + sub.toRealPath()
                            + ": it lies inside directory " + t.path.toRealPath() + " of store 'alpha'");
        }
        // Markers stay on disk: refused as well when the outer store is not open (another process's, or none).
        assertThatThrownBy(() -> open(sub, "beta")).isInstanceOf(StoreClaimedException.class);
    }

    @Test
    void aRootHoldingAnotherStoresIsRefusedAtOpenNamingBoth() throws Exception {
        Path sub = Files.createDirectories(t.path.resolve("a/b/sub"));
        open(sub, "beta").close();
        assertThatThrownBy(() -> open(t.path, "alpha"))
                .isInstanceOf(StoreClaimedException.class)
                .hasMessageStartingWith("store 'alpha' cannot use directory " + t.path.toRealPath() + ": directory "
                        + sub.toRealPath() + " inside it belongs to store 'beta'");
    }

    @Test
    void aRootNestedThroughASymbolicLinkIsRefused() throws Exception {
        Path real = Files.createDirectories(t.path.resolve("real"));
        Path inner = Files.createDirectories(real.resolve("inner"));
        Path link = Files.createSymbolicLink(t.path.resolve("link"), inner);
        try (FilesGuardedStore alpha = open(real, "alpha")) {
            assertThatThrownBy(() -> open(link, "beta"))
                    .isInstanceOf(StoreClaimedException.class)
                    .hasMessageContaining("directory " + inner.toRealPath() + ": it lies inside directory " + real.toRealPath());
        }
    }

    @Test
    void siblingRootsAndOneRootSharedByOneNameStillOpen() throws Exception {
        Path a = Files.createDirectories(t.path.resolve("a"));
        Path b = Files.createDirectories(t.path.resolve("b"));
        try (FilesGuardedStore one = open(a, "alpha"); FilesGuardedStore again = open(a, "alpha");
                FilesGuardedStore other = open(b, "beta")) {
            assertThat(one.write("k", 1, "x".getBytes(StandardCharsets.UTF_8)).toCompletableFuture().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(Applied.class);
        }
    }

    /** Each round, alpha's {@code sub/k<r>} and beta's {@code k<r>} (one file) written at once. */
    private static void rounds(FilesGuardedStore alpha, FilesGuardedStore beta, List<String> lost) throws Exception {
        for (int r = 0; r < ROUNDS; r++) {
            CompletableFuture<WriteResult> a = attempt(alpha, "sub/k" + r, "alpha");
            CompletableFuture<WriteResult> b = attempt(beta, "k" + r, "beta");
            boolean alphaApplied = a.get(30, TimeUnit.SECONDS) instanceof Applied;
            boolean betaApplied = b.get(30, TimeUnit.SECONDS) instanceof Applied;
            if (alphaApplied && !holds(alpha, "sub/k" + r, "alpha") || betaApplied && !holds(beta, "k" + r, "beta")) {
                lost.add("round " + r + ": alpha applied=" + alphaApplied + ", beta applied=" + betaApplied);
            }
        }
    }

    /** A write's outcome, or null if the store refused it (an exception: nothing acknowledged). */
    private static CompletableFuture<WriteResult> attempt(FilesGuardedStore store, String key, String value) {
        return store.write(key, 1, value.getBytes(StandardCharsets.UTF_8)).toCompletableFuture()
                .exceptionally(refused -> null);
    }

    private static boolean holds(FilesGuardedStore store, String key, String value) {
        try {
            ReadResult read = store.read(key).toCompletableFuture().get(30, TimeUnit.SECONDS);
            return read instanceof Found f && new String(f.value(), StandardCharsets.UTF_8).equals(value);
        } catch (Exception e) {
            return false; // unreadable (the file holds the other store's key): the write is gone
        }
    }
}
