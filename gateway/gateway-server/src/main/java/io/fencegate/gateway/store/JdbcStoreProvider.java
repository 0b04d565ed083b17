package io.fencegate.gateway.store;

import io.fencegate.store.StoreClaimedException;
import io.fencegate.store.jdbc.JdbcGuardedStore;
import io.fencegate.store.jdbc.JdbcStoreOptions;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.OpenedStore;
import io.fencegate.store.spi.Settings;
import io.fencegate.store.spi.StoreContext;
import io.fencegate.store.spi.StoreProvider;
import java.time.Duration;

/** {@code type: jdbc}: a {@link JdbcGuardedStore}, which also runs named statements. */
public final class JdbcStoreProvider implements StoreProvider<JdbcStoreSettings> {

    @Override
    public String type() {
        return "jdbc";
    }

    @Override
    public Class<JdbcStoreSettings> settingsType() {
        return JdbcStoreSettings.class;
    }

    @Override
    public OpenedStore open(JdbcStoreSettings s, StoreContext context) {
        JdbcStoreOptions options = new JdbcStoreOptions().jdbcUrl(s.url()).username(s.user())
                .password(s.password() == null ? "" : s.password()).name(context.name())
                .rule(Settings.rule("rule", s.rule()));
        if (s.poolSize() != null) {
            options.poolSize(s.poolSize());
        }
        Duration queryTimeout = Settings.duration("queryTimeout", s.queryTimeout(), null);
        if (queryTimeout != null) {
            options.queryTimeout(queryTimeout);
        }
        JdbcGuardedStore store;
        try {
            store = JdbcGuardedStore.open(options);
        } catch (StoreClaimedException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new InvalidSettingException(null, "cannot open " + s.url() + ": " + e.getMessage(), e);
        }
        return new OpenedStore(store, store);
    }
}
