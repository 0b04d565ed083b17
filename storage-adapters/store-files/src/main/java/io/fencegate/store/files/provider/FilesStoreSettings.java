package io.fencegate.store.files.provider;

import io.fencegate.store.spi.Settings;
import io.fencegate.store.spi.StoreSettings;

/**
 * {@code type: files}: {@code dir} (must exist: a missing directory is an outage, never
 * recreated), {@code rule}, {@code lock}. No other key: a files store has no port, user,
 * password, pool or statements, and a key set but ignored would hide a mistake.
 */
public record FilesStoreSettings(String dir, String rule, String lock) implements StoreSettings {

    @Override
    public void validate() {
        Settings.required("dir", dir);
        StoreSettings.super.validate();
    }
}
