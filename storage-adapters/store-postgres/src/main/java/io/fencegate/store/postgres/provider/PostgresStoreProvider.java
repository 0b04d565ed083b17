package io.fencegate.store.postgres.provider;

import io.fencegate.schema.FencegateSchema;
import io.fencegate.spi.ConnectFailure;
import io.fencegate.spi.LoginRefusal;
import io.fencegate.store.StoreClaimedException;
import io.fencegate.store.postgres.PgGuardedStore;
import io.fencegate.store.postgres.PgStoreOptions;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.OpenedStore;
import io.fencegate.store.spi.Settings;
import io.fencegate.store.spi.StoreContext;
import io.fencegate.store.spi.StoreProvider;
import io.fencegate.store.spi.StoreType;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Optional;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code type: postgres}: a {@link PgGuardedStore} on the server's {@link Vertx} (its
 * {@link StoreContext#service}). fencegate's tables are migrated first, over JDBC, into
 * {@code schema}.
 */
public final class PostgresStoreProvider implements StoreProvider<PostgresStoreSettings> {

    private static final StoreType<PostgresStoreSettings> TYPE = new StoreType<>("postgres", PostgresStoreSettings.class);

    /** Migrates over JDBC first (the reactive client cannot run Flyway), then opens on the server's Vert.x. */
    @Override
    public OpenedStore open(PostgresStoreSettings s, StoreContext context) {
        PgStoreOptions options = new PgStoreOptions().name(context.name()).rule(Settings.rule("rule", s.rule()))
                .schema(s.schema()).password(s.password());
        Optional.ofNullable(s.host()).ifPresent(options::host);
        Optional.ofNullable(s.port()).ifPresent(options::port);
        Optional.ofNullable(s.database()).ifPresent(options::database);
        Optional.ofNullable(s.user()).ifPresent(options::user);
        Optional.ofNullable(s.poolSize()).ifPresent(options::poolSize);
        Duration queryTimeout = Settings.duration("queryTimeout", s.queryTimeout(), null);
        Optional.ofNullable(queryTimeout).ifPresent(options::operationTimeout);
        String where = options.host() + ":" + options.port() + "/" + options.database();
        try {
            FencegateSchema.migrate(migrationSource(options));
        } catch (RuntimeException e) {
            throw unreachable(options, e).orElseGet(() ->
                    new InvalidSettingException(null, "cannot migrate " + where + ": " + e.getMessage(), e));
        }
        PgGuardedStore store;
        try {
            store = PgGuardedStore.open(context.service(Vertx.class), options);
        } catch (StoreClaimedException e) {
            throw e;
        } catch (RuntimeException e) {
            throw unreachable(options, e).orElseGet(() ->
                    new InvalidSettingException(null, "cannot open " + where + ": " + e.getMessage(), e));
        }
        return new OpenedStore(store, store);
    }

    /**
     * A refused login under the key to fix ({@code user}, {@code password}, {@code database}), or
     * nothing answering at host:port, named under {@code host} with the port beside it.
     */
    private static Optional<InvalidSettingException> unreachable(PgStoreOptions options, RuntimeException e) {
        String url = "jdbc:postgresql://" + options.host() + ":" + options.port() + "/" + options.database();
        Optional<LoginRefusal> refusal = LoginRefusal.of(e, url, options.user());
        if (refusal.isPresent()) {
            return Optional.of(new InvalidSettingException(refusal.get().setting(), refusal.get().problem(), e));
        }
        return ConnectFailure.reason(e).map(why -> new InvalidSettingException("host", "cannot reach Postgres at "
                + options.host() + ":" + options.port() + " (" + why + "); check host and port", e));
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
        Optional.ofNullable(options.schema()).ifPresent(ds::setCurrentSchema);
        return ds;
    }

    @Override
    public StoreType<PostgresStoreSettings> storeType() {
        return TYPE;
    }
}
