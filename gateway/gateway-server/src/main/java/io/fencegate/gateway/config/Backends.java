package io.fencegate.gateway.config;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.JdbcTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.fencegate.issuer.redis.TokenHighWaterMark;
import io.fencegate.issuer.zookeeper.TokenMode;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.NamedSql;
import io.fencegate.store.StoreClaimedException;
import io.fencegate.store.files.FilesGuardedStore;
import io.fencegate.store.files.FilesStoreOptions;
import io.fencegate.store.jdbc.JdbcGuardedStore;
import io.fencegate.store.jdbc.JdbcStoreOptions;
import io.fencegate.store.postgres.PgGuardedStore;
import io.fencegate.store.postgres.PgStoreOptions;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The issuer and stores a config names, opened and owned: {@link #close()} ends leases and sessions
 * and closes pools, in reverse order of opening. Every key is checked before anything is opened;
 * a failure names the key.
 */
public final class Backends implements AutoCloseable {
    private static final Pattern STORE_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Duration MARK_TIMEOUT = Duration.ofSeconds(5);
    private static final Pattern SQL_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private final LeaseIssuer issuer;
    private final List<StoreBinding> stores;
    private final List<AutoCloseable> owned;
    private final String description;

    private Backends(LeaseIssuer issuer, List<StoreBinding> stores, List<AutoCloseable> owned, String description) {
        this.issuer = issuer;
        this.stores = stores;
        this.owned = owned;
        this.description = description;
    }

    public LeaseIssuer issuer() {
        return issuer;
    }

    public List<StoreBinding> stores() {
        return stores;
    }

    /** One line for the start-up message: the issuer and the store names. */
    public String describe() {
        return description;
    }

    /** Checks every key of {@code config}; throws {@link ConfigException} naming the first bad one. */
    public static void validate(GatewayConfig config) {
        GatewayConfig.Issuer i = config.issuer();
        if (i == null || i.type() == null) {
            throw new ConfigException("issuer.type", "required: zookeeper, redis or embedded-zookeeper");
        }
        switch (i.type()) {
            case "zookeeper" -> {
                required("issuer.connectString", i.connectString());
                tokenMode(i.tokenMode());
                Durations.parse("issuer.sessionTimeout", i.sessionTimeout(), null);
                Durations.parse("issuer.operationTimeout", i.operationTimeout(), null);
                Durations.parse("issuer.forgetIdleLocksAfter", i.forgetIdleLocksAfter(), null);
            }
            case "redis" -> {
                required("issuer.uri", i.uri());
                if ((i.highWaterMarkFile() == null) == (i.highWaterMarkUrl() == null)) {
                    throw new ConfigException("issuer.highWaterMarkFile",
                            "set either highWaterMarkFile (one host) or highWaterMarkUrl (a database all gateways share)");
                }
                if (i.highWaterMarkUrl() != null && !i.highWaterMarkUrl().startsWith("jdbc:")) {
                    throw new ConfigException("issuer.highWaterMarkUrl", "expected a JDBC URL, got '" + i.highWaterMarkUrl() + "'");
                }
            }
            case "embedded-zookeeper" -> {
                required("issuer.dataDir", i.dataDir());
                Durations.parse("issuer.forgetIdleLocksAfter", i.forgetIdleLocksAfter(), null);
            }
            default -> throw new ConfigException("issuer.type",
                    "expected zookeeper, redis or embedded-zookeeper, got '" + i.type() + "'");
        }
        if (config.stores().isEmpty()) {
            throw new ConfigException("stores", "configure at least one store");
        }
        config.stores().forEach((name, s) -> validateStore("stores." + name, name, s));
    }

    private static void validateStore(String at, String name, GatewayConfig.Store s) {
        if (!STORE_NAME.matcher(name).matches()) {
            throw new ConfigException(at, "a store name is 1-64 of A-Z a-z 0-9 _ -");
        }
        if (s == null || s.type() == null) {
            throw new ConfigException(at + ".type", "required: postgres, jdbc or files");
        }
        rule(at + ".rule", s.rule());
        if (s.lock() != null && s.lock().isBlank()) {
            throw new ConfigException(at + ".lock", "must not be blank (leave it out for one lock per item)");
        }
        switch (s.type()) {
            case "postgres" -> {
                onlyFor(at, "postgres", "url", s.url(), "dir", s.dir());
                if (s.port() != null && (s.port() < 1 || s.port() > 65535)) {
                    throw new ConfigException(at + ".port", "must be 1..65535, was " + s.port());
                }
                if (s.schema() != null && !SQL_NAME.matcher(s.schema()).matches()) {
                    throw new ConfigException(at + ".schema", "a schema name is 1-63 of a-z 0-9 _, starting with a letter or _");
                }
                validateSql(at, s);
            }
            case "jdbc" -> {
                onlyFor(at, "jdbc", "host", s.host(), "database", s.database(), "schema", s.schema(), "dir", s.dir());
                if (s.port() != null) {
                    throw new ConfigException(at + ".port", "not a key of a jdbc store: the port goes in the url");
                }
                required(at + ".url", s.url());
                if (!s.url().startsWith("jdbc:")) {
                    throw new ConfigException(at + ".url", "expected a JDBC URL (jdbc:mariadb:, jdbc:mysql:, jdbc:postgresql:, jdbc:h2:), got '" + s.url() + "'");
                }
                validateSql(at, s);
            }
            case "files" -> {
                required(at + ".dir", s.dir());
                onlyFor(at, "files", "url", s.url(), "host", s.host(), "database", s.database(), "schema", s.schema());
                if (!s.statements().isEmpty()) {
                    throw new ConfigException(at + ".statements", "only SQL stores run statements");
                }
            }
            default -> throw new ConfigException(at + ".type", "expected postgres, jdbc or files, got '" + s.type() + "'");
        }
    }

    /** Pool size, query timeout and statements: the keys every SQL store shares. */
    private static void validateSql(String at, GatewayConfig.Store s) {
        Durations.parse(at + ".queryTimeout", s.queryTimeout(), null);
        if (s.poolSize() != null && (s.poolSize() < 1 || s.poolSize() > 1000)) {
            throw new ConfigException(at + ".poolSize", "must be 1..1000, was " + s.poolSize());
        }
        s.statements().forEach((stmt, sql) -> {
            try {
                NamedSql.parse(sql);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(at + ".statements." + stmt, e.getMessage());
            }
        });
    }

    /** Refuses a key that belongs to another store type: set but ignored would hide a mistake. */
    private static void onlyFor(String at, String type, String... keysAndValues) {
        for (int i = 0; i < keysAndValues.length; i += 2) {
            if (keysAndValues[i + 1] != null) {
                throw new ConfigException(at + "." + keysAndValues[i], "not a key of a " + type + " store");
            }
        }
    }

    /**
     * Validates, then opens the issuer and every store; on a failure closes what was opened.
     * Reactive stores run on {@code vertx}, which the caller owns and closes after {@link #close()}.
     */
    public static Backends open(GatewayConfig config, Vertx vertx) throws Exception {
        validate(config);
        List<AutoCloseable> owned = new ArrayList<>();
        try {
            GatewayConfig.Issuer i = config.issuer();
            String issuerName;
            LeaseIssuer issuer;
            switch (i.type()) {
                case "embedded-zookeeper" -> {
                    EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(Path.of(i.dataDir()));
                    owned.add(zk);
                    issuer = zooKeeper(zk.connectString(), i);
                    issuerName = "embedded ZooKeeper " + zk.connectString();
                }
                case "zookeeper" -> {
                    issuer = zooKeeper(i.connectString(), i);
                    issuerName = "ZooKeeper " + i.connectString();
                }
                default -> {
                    String prefix = i.keyPrefix() == null ? "fencegate:" : i.keyPrefix();
                    issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(i.uri()).keyPrefix(prefix)
                            .highWaterMark(highWaterMark(i, prefix, owned)));
                    issuerName = "Redis " + i.uri().replaceAll("//[^@/]*@", "//***@");
                }
            }
            owned.add(issuer);
            List<StoreBinding> stores = new ArrayList<>();
            for (Map.Entry<String, GatewayConfig.Store> e : config.stores().entrySet()) {
                stores.add(openStore(e.getKey(), e.getValue(), vertx, owned));
            }
            checkKeyLimit(config, stores);
            String description = "issuer: " + issuerName + "; stores: " + String.join(", ", config.stores().keySet());
            return new Backends(issuer, List.copyOf(stores), owned, description);
        } catch (Exception | Error e) {
            closeAll(owned, e);
            throw e;
        }
    }

    /**
     * A key the gateway accepts must fit every store it can address: a limits.maxKeyBytes above a
     * store's own limit (an SQL store's key column holds 2048 bytes) would accept keys the store
     * can never write.
     */
    private static void checkKeyLimit(GatewayConfig config, List<StoreBinding> stores) {
        Integer configured = config.limits() == null ? null : config.limits().maxKeyBytes();
        if (configured == null) {
            return;
        }
        for (StoreBinding b : stores) {
            int storeLimit = b.store().limits().maxKeyBytes();
            if (configured > storeLimit) {
                throw new ConfigException("limits.maxKeyBytes", configured + " is more than store '" + b.name()
                        + "' takes (" + storeLimit + " bytes): lower it to at most " + storeLimit);
            }
        }
    }

    /**
     * The Redis issuer's durable token bound: a file, or a row in a database every gateway on the
     * key prefix shares (migrated here, pool owned and closed after the issuer).
     */
    private static TokenHighWaterMark highWaterMark(GatewayConfig.Issuer i, String prefix, List<AutoCloseable> owned) {
        if (i.highWaterMarkFile() != null) {
            return new FileTokenHighWaterMark(Path.of(i.highWaterMarkFile()));
        }
        HikariConfig pool = new HikariConfig();
        pool.setPoolName("fencegate-token-mark");
        pool.setJdbcUrl(i.highWaterMarkUrl());
        pool.setUsername(i.highWaterMarkUser());
        pool.setPassword(i.highWaterMarkPassword() == null ? "" : i.highWaterMarkPassword());
        pool.setMaximumPoolSize(2);
        pool.setConnectionTimeout(MARK_TIMEOUT.toMillis());
        pool.setInitializationFailTimeout(MARK_TIMEOUT.toMillis());
        HikariDataSource dataSource;
        try {
            dataSource = new HikariDataSource(pool);
        } catch (RuntimeException e) {
            throw new ConfigException("issuer.highWaterMarkUrl: cannot open " + i.highWaterMarkUrl() + ": " + e.getMessage(), e);
        }
        owned.add(dataSource);
        try {
            FencegateSchema.migrate(dataSource);
        } catch (RuntimeException e) {
            throw new ConfigException("issuer.highWaterMarkUrl: cannot migrate " + i.highWaterMarkUrl() + ": " + e.getMessage(), e);
        }
        return new JdbcTokenHighWaterMark(dataSource, prefix, MARK_TIMEOUT);
    }

    private static LeaseIssuer zooKeeper(String connectString, GatewayConfig.Issuer i) {
        var b = ZooKeeperLeaseIssuer.builder().connectString(connectString).tokenMode(tokenMode(i.tokenMode()));
        if (i.root() != null) {
            b.root(i.root());
        }
        Duration session = Durations.parse("issuer.sessionTimeout", i.sessionTimeout(), null);
        if (session != null) {
            b.sessionTimeout(session);
        }
        Duration op = Durations.parse("issuer.operationTimeout", i.operationTimeout(), null);
        if (op != null) {
            b.operationTimeout(op);
        }
        Duration idle = Durations.parse("issuer.forgetIdleLocksAfter", i.forgetIdleLocksAfter(), null);
        if (idle != null) {
            b.forgetIdleLocksAfter(idle);
        }
        return b.build();
    }

    private static StoreBinding openStore(String name, GatewayConfig.Store s, Vertx vertx, List<AutoCloseable> owned) {
        GuardRule rule = rule("stores." + name + ".rule", s.rule());
        if (s.type().equals("postgres")) {
            return openPostgres(name, s, rule, vertx, owned);
        }
        if (s.type().equals("files")) {
            Path dir = Path.of(s.dir());
            if (!Files.isDirectory(dir)) {
                throw new ConfigException("stores." + name + ".dir", "no such directory: " + dir.toAbsolutePath());
            }
            GuardedStore store;
            try {
                store = FilesGuardedStore.open(new FilesStoreOptions().root(dir).name(name).rule(rule));
            } catch (StoreClaimedException e) {
                throw new ConfigException("stores." + name + ": " + e.getMessage(), e);
            }
            owned.add(store);
            return new StoreBinding(name, store, null, Map.of(), s.lock());
        }
        JdbcStoreOptions options = new JdbcStoreOptions().jdbcUrl(s.url()).username(s.user())
                .password(s.password() == null ? "" : s.password()).name(name).rule(rule);
        if (s.poolSize() != null) {
            options.poolSize(s.poolSize());
        }
        Duration queryTimeout = Durations.parse("stores." + name + ".queryTimeout", s.queryTimeout(), null);
        if (queryTimeout != null) {
            options.queryTimeout(queryTimeout);
        }
        JdbcGuardedStore store;
        try {
            store = JdbcGuardedStore.open(options);
        } catch (StoreClaimedException e) {
            throw new ConfigException("stores." + name + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new ConfigException("stores." + name + ": cannot open " + s.url() + ": " + e.getMessage(), e);
        }
        owned.add(store);
        Map<String, NamedSql> named = new LinkedHashMap<>();
        s.statements().forEach((stmt, sql) -> named.put(stmt, NamedSql.parse(sql)));
        return new StoreBinding(name, store, store, named, s.lock());
    }

    /** The reactive store; fencegate's tables are migrated first, over JDBC, into {@code schema}. */
    private static StoreBinding openPostgres(String name, GatewayConfig.Store s, GuardRule rule, Vertx vertx,
                                             List<AutoCloseable> owned) {
        PgStoreOptions options = new PgStoreOptions().name(name).rule(rule).schema(s.schema());
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
        options.password(s.password());
        if (s.poolSize() != null) {
            options.poolSize(s.poolSize());
        }
        Duration queryTimeout = Durations.parse("stores." + name + ".queryTimeout", s.queryTimeout(), null);
        if (queryTimeout != null) {
            options.operationTimeout(queryTimeout);
        }
        String where = options.host() + ":" + options.port() + "/" + options.database();
        try {
            FencegateSchema.migrate(migrationSource(options));
        } catch (RuntimeException e) {
            throw new ConfigException("stores." + name + ": cannot migrate " + where + ": " + e.getMessage(), e);
        }
        PgGuardedStore store;
        try {
            store = PgGuardedStore.open(vertx, options);
        } catch (StoreClaimedException e) {
            throw new ConfigException("stores." + name + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new ConfigException("stores." + name + ": cannot open " + where + ": " + e.getMessage(), e);
        }
        owned.add(store);
        Map<String, NamedSql> named = new LinkedHashMap<>();
        s.statements().forEach((stmt, sql) -> named.put(stmt, NamedSql.parse(sql)));
        return new StoreBinding(name, store, store, named, s.lock());
    }

    private static PGSimpleDataSource migrationSource(PgStoreOptions options) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {options.host()});
        ds.setPortNumbers(new int[] {options.port()});
        ds.setDatabaseName(options.database());
        ds.setUser(options.user());
        ds.setPassword(options.password());
        int seconds = (int) Math.max(1, options.connectTimeout().toSeconds());
        ds.setConnectTimeout(seconds);
        ds.setSocketTimeout((int) Math.max(60, options.operationTimeout().toSeconds()));
        if (options.schema() != null) {
            ds.setCurrentSchema(options.schema());
        }
        return ds;
    }

    private static void required(String key, String value) {
        if (value == null || value.isBlank()) {
            throw new ConfigException(key, "required");
        }
    }

    private static GuardRule rule(String key, String text) {
        if (text == null || text.equals("strict")) {
            return GuardRule.STRICT;
        }
        if (text.equals("same-lease")) {
            return GuardRule.SAME_LEASE;
        }
        throw new ConfigException(key, "expected strict or same-lease, got '" + text + "'");
    }

    private static TokenMode tokenMode(String text) {
        if (text == null) {
            return TokenMode.ZXID;
        }
        try {
            return TokenMode.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("issuer.tokenMode", "expected zxid or cversion, got '" + text + "'");
        }
    }

    private static void closeAll(List<AutoCloseable> owned, Throwable failure) {
        for (int i = owned.size() - 1; i >= 0; i--) {
            try {
                owned.get(i).close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
    }

    @Override
    public void close() {
        RuntimeException failure = new RuntimeException("closing backends failed");
        closeAll(owned, failure);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }
}
