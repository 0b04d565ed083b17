package io.fencegate.store.jdbc.provider;

import io.fencegate.spi.ConnectFailure;
import io.fencegate.spi.ExclusivePath;
import io.fencegate.spi.LocalClaim;
import io.fencegate.spi.LoginRefusal;
import io.fencegate.store.StoreClaimedException;
import io.fencegate.store.jdbc.JdbcGuardedStore;
import io.fencegate.store.jdbc.JdbcStoreOptions;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.OpenedStore;
import io.fencegate.store.spi.Settings;
import io.fencegate.store.spi.StoreContext;
import io.fencegate.store.spi.StoreProvider;
import io.fencegate.store.spi.StoreType;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code type: jdbc}: a {@link JdbcGuardedStore}, which also runs named statements. */
public final class JdbcStoreProvider implements StoreProvider<JdbcStoreSettings> {

    private static final Logger log = LoggerFactory.getLogger(JdbcStoreProvider.class);
    private static final StoreType<JdbcStoreSettings> TYPE = new StoreType<>("jdbc", JdbcStoreSettings.class);

    /**
     * Claims a local H2 file, opens the pool and migrates fencegate's tables; an unreachable
     * database names the url; a refused login, the key to fix. The claim is registered to close after the store.
     */
    @Override
    public OpenedStore open(JdbcStoreSettings s, StoreContext context) {
        JdbcStoreOptions options = new JdbcStoreOptions().jdbcUrl(s.connectUrl()).username(s.user())
                .password(s.password() == null ? "" : s.password()).name(context.name())
                .rule(Settings.rule("rule", s.rule()));
        Optional.ofNullable(s.poolSize()).ifPresent(options::poolSize);
        Duration queryTimeout = Settings.duration("queryTimeout", s.queryTimeout(), null);
        Optional.ofNullable(queryTimeout).ifPresent(options::queryTimeout);
        // A local H2 file is this store's alone: claimed before H2 opens it, held until the gateway stops.
        for (ExclusivePath local : s.exclusivePaths()) {
            context.closeOnStop(LocalClaim.take(local, why -> log.error("{}", why)));
        }
        JdbcGuardedStore store;
        try {
            // One connection first: the pool would retry a refused login for its whole start-up timeout.
            LoginRefusal.probe(s.connectUrl(), s.user(), s.password(), Duration.ofSeconds(5));
            store = JdbcGuardedStore.open(options);
        } catch (SQLException e) {
            throw failure(s, e);
        } catch (StoreClaimedException e) {
            throw e;
        } catch (RuntimeException e) {
            throw failure(s, e);
        }
        return new OpenedStore(store, store);
    }

    /** A refused login under the key to fix; "cannot reach" only when nothing answered. */
    private static io.fencegate.spi.InvalidSettingException failure(JdbcStoreSettings s, Exception e) {
        Optional<LoginRefusal> refusal = LoginRefusal.of(e, s.url(), s.user());
        if (refusal.isPresent()) {
            return refusal.get().at("user", "password", "url", e);
        }
        return ConnectFailure.reason(e)
                .map(why -> new InvalidSettingException("url", "cannot reach the database at " + s.url() + " (" + why + ")", e))
                .orElseGet(() -> new InvalidSettingException(null, "cannot open " + s.url() + ": " + e.getMessage(), e));
    }

    @Override
    public StoreType<JdbcStoreSettings> storeType() {
        return TYPE;
    }
}
