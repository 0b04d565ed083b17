package io.fencegate.gateway.store;

import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.StoreClaimedException;
import io.fencegate.store.postgres.PgGuardedStore;
import io.fencegate.store.postgres.PgStoreOptions;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.OpenedStore;
import io.fencegate.store.spi.Settings;
import io.fencegate.store.spi.StoreContext;
import io.fencegate.store.spi.StoreProvider;
import io.vertx.core.Vertx;
import java.time.Duration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code type: postgres}: a {@link PgGuardedStore} on the gateway's {@link Vertx}. fencegate's
 * tables are migrated first, over JDBC, into {@code schema}.
 */
public final class PostgresStoreProvider implements StoreProvider<PostgresStoreSettings> {

    @Override
    public String type() {
        return "postgres";
    }

    @Override
    public Class<PostgresStoreSettings> settingsType() {
        return PostgresStoreSettings.class;
    }

    @Override
    public OpenedStore open(PostgresStoreSettings s, StoreContext context) {
        PgStoreOptions options = new PgStoreOptions().name(context.name()).rule(Settings.rule("rule", s.rule()))
                .schema(s.schema()).password(s.password());
        if (s.host() != null) {
            options.host(s.host());
        }
        if (s.port() != null) {
            options.port(s.port());
        }
        if (s.database() != null) {
            options.database(s.database());
        }
        if (s.user() != null) {
            options.user(s.user());
        }
        if (s.poolSize() != null) {
            options.poolSize(s.poolSize());
        }
        Duration queryTimeout = Settings.duration("queryTimeout", s.queryTimeout(), null);
        if (queryTimeout != null) {
            options.operationTimeout(queryTimeout);
        }
        String where = options.host() + ":" + options.port() + "/" + options.database();
        try {
            FencegateSchema.migrate(migrationSource(options));
        } catch (RuntimeException e) {
            throw new InvalidSettingException(null, "cannot migrate " + where + ": " + e.getMessage(), e);
        }
        PgGuardedStore store;
        try {
            store = PgGuardedStore.open(context.service(Vertx.class), options);
        } catch (StoreClaimedException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new InvalidSettingException(null, "cannot open " + where + ": " + e.getMessage(), e);
        }
        return new OpenedStore(store, store);
    }

    private static PGSimpleDataSource migrationSource(PgStoreOptions options) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {options.host()});
        ds.setPortNumbers(new int[] {options.port()});
        ds.setDatabaseName(options.database());
        ds.setUser(options.user());
        ds.setPassword(options.password());
        ds.setConnectTimeout((int) Math.max(1, options.connectTimeout().toSeconds()));
        ds.setSocketTimeout((int) Math.max(60, options.operationTimeout().toSeconds()));
        if (options.schema() != null) {
            ds.setCurrentSchema(options.schema());
        }
        return ds;
    }
}
