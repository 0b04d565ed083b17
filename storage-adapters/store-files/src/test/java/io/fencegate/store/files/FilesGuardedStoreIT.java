package io.fencegate.store.files;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.store.Applied;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Missing;
import io.fencegate.store.testkit.AbstractGuardedStoreContractTest;
import io.fencegate.store.testkit.OutageHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The store contract on a real directory, plus what only files have: keys that cannot leave the
 * root, symbolic links refused, and an outage made by taking the directory away (an unmounted
 * volume) and giving it back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FilesGuardedStoreIT extends AbstractGuardedStoreContractTest {

    /** One rename per item: several items cannot change together across a crash without a journal. */
    @Override
    protected boolean transactsByDesign() {
        return false;
    }

    private TempRoot root;
    /** Where the tests of other stores put theirs: never inside the contract store's root (stores must not nest). */
    private TempRoot others;

    @BeforeAll
    void createRoot() throws Exception {
        root = new TempRoot("files-contract");
        others = new TempRoot("files-others");
    }

    @AfterAll
    void deleteRoot() throws Exception {
        root.close();
        others.close();
    }

    @Override
    protected GuardedStore newStore(GuardRule rule) {
        return FilesGuardedStore.open(root.path, rule);
    }

    @Override
    protected GuardedStore newIndependentStore(GuardRule rule) {
        return FilesGuardedStore.open(root.path, rule);
    }

    @Override
    protected String storeName() {
        return "default";
    }

    @Override
    protected GuardedStore newStoreNamed(String name, GuardRule rule) {
        return FilesGuardedStore.open(new FilesStoreOptions().root(root.path).name(name).rule(rule));
    }

    /**
     * The outage store's root is a symbolic link to the real directory, as a mount point is to a
     * volume: cut removes the link (the volume is gone), restore puts it back. The witness reads
     * the real directory throughout.
     */
    @Override
    protected OutageHarness outageHarness() {
        return OutageHarness.custom(rule -> {
            Path volume = Files.createDirectories(others.path.resolve("outage-volume"));
            Path mount = Files.createSymbolicLink(others.path.resolve("outage-mount"), volume);
            GuardedStore viaMount = FilesGuardedStore.open(mount, rule);
            GuardedStore witness = FilesGuardedStore.open(volume, rule);
            return new OutageHarness.Outage() {
                @Override
                public GuardedStore store() {
                    return viaMount;
                }

                @Override
                public GuardedStore witness() {
                    return witness;
                }

                @Override
                public void cut() throws Exception {
                    Files.delete(mount);
                }

                @Override
                public void restore() throws Exception {
                    Files.createSymbolicLink(mount, volume);
                }

                @Override
                public void close() throws Exception {
                    viaMount.close();
                    witness.close();
                    Files.deleteIfExists(mount);
                }
            };
        });
    }

    @Test
    void keysNeverResolveOutsideTheRoot() throws Exception {
        GuardedStore store = closeAfter(newStore(GuardRule.STRICT));
        for (String bad : new String[] {"../escape", "a/../../escape", "/etc/passwd", "a/./b", "a//b", "nul\0byte", ""}) {
            assertThatThrownBy(() -> await(store.write(bad, 1, bytes("x")))).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        // Dots, backslashes and percent signs are just characters of a name.
        String odd = key("..%2F..\\..%2e%2e/.hidden/...");
        assertThat(await(store.write(odd, 1, bytes("odd")))).isEqualTo(new Applied(0));
        assertFound(await(store.read(odd)), "odd", 1, 1);
        try (var files = Files.walk(root.path.getParent(), 1)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains("hidden") || n.contains("escape"));
        }
    }

    @Test
    void aSymbolicLinkInsideTheRootIsRefusedAndTheOutsideIsUntouched() throws Exception {
        GuardedStore store = closeAfter(newStore(GuardRule.STRICT));
        try (TempRoot outside = new TempRoot("outside")) {
            String dirKey = key("linked");
            await(store.write(dirKey + "/probe", 1, bytes("p"))); // creates the directory for the segment
            Path probe = KeyPaths.itemFile(root.path, dirKey + "/probe");
            Path linkedDir = probe.getParent();
            Files.delete(probe);
            Files.delete(linkedDir);
            Files.createSymbolicLink(linkedDir, outside.path);

            assertThatThrownBy(() -> await(store.write(dirKey + "/victim", 1, bytes("x"))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("symbolic link");
            assertThatThrownBy(() -> await(store.read(dirKey + "/victim"))).isInstanceOf(IllegalArgumentException.class);
            try (var inside = Files.list(outside.path)) {
                assertThat(inside).isEmpty();
            }

            Path itemLink = KeyPaths.itemFile(root.path, key("file-link"));
            Files.createSymbolicLink(itemLink, outside.path.resolve("target"));
            assertThatThrownBy(() -> await(store.write(key("file-link"), 1, bytes("x"))))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(Files.exists(outside.path.resolve("target"))).isFalse();
            Files.delete(itemLink);
            Files.delete(linkedDir);
        }
    }

    @Test
    void aMissingRootIsAnOutageNotAnEmptyStore() throws Exception {
        Path gone = Files.createDirectories(others.path.resolve("vanishing"));
        GuardedStore store = closeAfter(FilesGuardedStore.open(gone, GuardRule.STRICT));
        Files.delete(gone.resolve(StoreMarker.FILE));
        Files.delete(gone);
        assertThatThrownBy(() -> await(store.read(key("x")))).isInstanceOf(io.fencegate.store.StoreUnavailableException.class);
        assertThatThrownBy(() -> await(store.write(key("x"), 1, bytes("x"))))
                .isInstanceOf(io.fencegate.store.StoreUnavailableException.class);
        assertThat(Files.exists(gone)).as("the root is not recreated").isFalse();
        Files.createDirectories(gone);
        assertThat(await(store.read(key("x")))).isEqualTo(new Missing(0, 0));
    }

    /** The owner marker lives beside the items but no key reaches it: '.' is encoded, item files end in .fgi. */
    @Test
    void theStoreMarkerIsNeverAnItem() throws Exception {
        Path dir = Files.createDirectories(others.path.resolve("marked"));
        GuardedStore store = closeAfter(FilesGuardedStore.open(new FilesStoreOptions().root(dir).name("marked")));
        assertThat(Files.readString(dir.resolve(StoreMarker.FILE)).strip()).isEqualTo("marked");
        assertThat(await(store.read(StoreMarker.FILE))).isEqualTo(new Missing(0, 0));
        assertThat(await(store.write(StoreMarker.FILE, 3, bytes("not the marker")))).isEqualTo(new Applied(0));
        assertThat(await(store.write(StoreMarker.FILE + "/x", 3, bytes("nor below it")))).isEqualTo(new Applied(0));
        assertThat(Files.readString(dir.resolve(StoreMarker.FILE)).strip()).isEqualTo("marked");
        assertThatThrownBy(() -> FilesGuardedStore.open(new FilesStoreOptions().root(dir).name("other")))
                .isInstanceOf(io.fencegate.store.StoreClaimedException.class)
                .hasMessageContaining("'other'").hasMessageContaining("'marked'");
    }

    /** README's files snippet, as written there but for the directory. */
    @Test
    void readmeFilesSnippetOpensANamedStrictStore() throws Exception {
        Path reportsDir = Files.createDirectories(others.path.resolve("reports"));
        GuardedStore reports = closeAfter(FilesGuardedStore.open(new FilesStoreOptions()
                .root(reportsDir).name("reports").rule(GuardRule.STRICT)));
        assertThat(reports.rule()).isEqualTo(GuardRule.STRICT);
        assertThat(await(reports.write("q3/summary.txt", 7, bytes("ok")))).isEqualTo(new Applied(0));
        assertThat(Files.readString(reportsDir.resolve(StoreMarker.FILE)).strip()).isEqualTo("reports");
    }
}
