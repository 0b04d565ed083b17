package io.fencegate.store.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.store.GuardRule;
import io.fencegate.store.StoreLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad files-store options are refused at open, naming the option, and create nothing. */
class FilesStoreOptionsTest {

    @TempDir
    Path dir;

    @Test
    void defaultsAreStrictNamedDefaultWithFourThreads() {
        FilesStoreOptions options = new FilesStoreOptions().root(dir).validate();
        assertThat(options.rule()).isEqualTo(GuardRule.STRICT);
        assertThat(options.name()).isEqualTo("default");
        assertThat(options.limits()).isEqualTo(StoreLimits.DEFAULT);
        assertThat(options.threads()).isEqualTo(4);
    }

    @Test
    void eachBadOptionIsRefusedNamingIt() {
        assertThatThrownBy(() -> new FilesStoreOptions().validate()).hasMessage("root: is required");
        assertThatThrownBy(() -> new FilesStoreOptions().root(dir).threads(0).validate())
                .hasMessage("threads: must be 1..1000, was 0");
        assertThatThrownBy(() -> new FilesStoreOptions().root(dir.resolve("missing")).validate())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("root: ").hasMessageContaining("is not an existing directory");
        assertThatThrownBy(() -> new FilesStoreOptions().name("a/b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a store name is 1-64");
    }

    @Test
    void openRefusesBadOptionsAndLeavesTheDirectoryUntouched() throws Exception {
        assertThatThrownBy(() -> FilesGuardedStore.open(new FilesStoreOptions().root(dir).threads(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("threads:");
        try (var entries = Files.list(dir)) {
            assertThat(entries).as("no marker, no lock directory").isEmpty();
        }
    }
}
