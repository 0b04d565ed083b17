package io.fencegate.store.jdbc.provider;

import io.fencegate.spi.ConnectFailure;
import io.fencegate.store.StoreClaimedException;
import io.fencegate.store.jdbc.JdbcGuardedStore;
import io.fencegate.store.jdbc.JdbcStoreOptions;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.OpenedStore;
import io.fencegate.store.spi.Settings;
import io.fencegate.store.spi.StoreContext;
import io.fencegate.store.spi.StoreProvider;
import io.fencegate.store.spi.StoreType;
import java.time.Duration;
import java.util.Optional;

/** {@code type: jdbc}: a {@link JdbcGuardedStore}, which also runs named statements. */
public final class JdbcStoreProvider implements StoreProvider<JdbcStoreSettings> {

    private static final StoreType<JdbcStoreSettings> TYPE = new StoreType<>("jdbc", JdbcStoreSettings.class);

    /** Opens the pool and migrates fencegate's tables; an unreachable database names the url. */
    @Override
    public OpenedStore open(JdbcStoreSettings s, StoreContext context) {
        JdbcStoreOptions options = new JdbcStoreOptions().jdbcUrl(s.url()).username(s.user())
                .password(s.password() == null ? "" : s.password()).name(context.name())
                .rule(Settings.rule("rule", s.rule()));
        Optional.ofNullable(s.poolSize()).ifPresent(options::poolSize);
        Duration queryTimeout = Settings.duration("queryTimeout", s.queryTimeout(), null);
        Optional.ofNullable(queryTimeout).ifPresent(options::queryTimeout);
        JdbcGuardedStore store;
        try {
            store = JdbcGuardedStore.open(options);
        } catch (StoreClaimedException e) {
            throw e;
        } catch (RuntimeException e) {
            throw ConnectFailure.reason(e)
                    .map(why -> new InvalidSettingException("url", "cannot reach the database at " + s.url() + " (" + why + ")", e))
                    .orElseGet(() -> new InvalidSettingException(null, "cannot open " + s.url() + ": " + e.getMessage(), e));
        }
        return new OpenedStore(store, store);
    }

    @Override
    public StoreType<JdbcStoreSettings> storeType() {
        return TYPE;
    }
}
