package io.fencegate.store.files.provider;

import io.fencegate.store.files.FilesGuardedStore;
import io.fencegate.store.files.FilesStoreOptions;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.OpenedStore;
import io.fencegate.store.spi.Settings;
import io.fencegate.store.spi.StoreContext;
import io.fencegate.store.spi.StoreProvider;
import io.fencegate.store.spi.StoreType;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code type: files}: a {@link FilesGuardedStore} on an existing directory. */
public final class FilesStoreProvider implements StoreProvider<FilesStoreSettings> {

    private static final StoreType<FilesStoreSettings> TYPE = new StoreType<>("files", FilesStoreSettings.class);

    @Override
    public StoreType<FilesStoreSettings> storeType() {
        return TYPE;
    }

    /** Never creates the directory: a missing one is an outage (an unmounted volume), not an empty store. */
    @Override
    public OpenedStore open(FilesStoreSettings settings, StoreContext context) {
        Path dir = Path.of(settings.dir());
        if (Files.isRegularFile(dir)) {
            throw new InvalidSettingException("dir", dir.toAbsolutePath() + " is a file, not a directory");
        }
        if (!Files.isDirectory(dir)) {
            throw new InvalidSettingException("dir", "no such directory: " + dir.toAbsolutePath());
        }
        if (!Files.isWritable(dir)) {
            throw new InvalidSettingException("dir", dir.toAbsolutePath() + " is not writable by this process: give its"
                    + " user write permission there (chown or chmod), or choose another dir");
        }
        return OpenedStore.of(FilesGuardedStore.open(new FilesStoreOptions()
                .root(dir).name(context.name()).rule(Settings.rule("rule", settings.rule()))));
    }
}
