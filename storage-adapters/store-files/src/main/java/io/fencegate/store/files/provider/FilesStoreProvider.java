package io.fencegate.store.files.provider;

import io.fencegate.store.files.FilesGuardedStore;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.OpenedStore;
import io.fencegate.store.spi.Settings;
import io.fencegate.store.spi.StoreContext;
import io.fencegate.store.spi.StoreProvider;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code type: files}: a {@link FilesGuardedStore} on an existing directory. */
public final class FilesStoreProvider implements StoreProvider<FilesStoreSettings> {

    @Override
    public String type() {
        return "files";
    }

    @Override
    public Class<FilesStoreSettings> settingsType() {
        return FilesStoreSettings.class;
    }

    @Override
    public OpenedStore open(FilesStoreSettings settings, StoreContext context) {
        Path dir = Path.of(settings.dir());
        if (!Files.isDirectory(dir)) {
            throw new InvalidSettingException("dir", "no such directory: " + dir.toAbsolutePath());
        }
        return OpenedStore.of(FilesGuardedStore.open(dir, context.name(), Settings.rule("rule", settings.rule())));
    }
}
