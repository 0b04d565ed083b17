package io.fencegate.spring.boot;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Everything under {@code fencegate.*}. Each part configures beans only when its module is on the
 * classpath and its key is set: {@code fencegate.client.url} (the gateway client),
 * {@code fencegate.issuer.backend} (a lease issuer), a single {@code DataSource} (guarded SQL).
 */
@ConfigurationProperties("fencegate")
public class FencegateProperties {

    private final Client client = new Client();
    private final Issuer issuer = new Issuer();
    private final Jdbc jdbc = new Jdbc();
    private final Shedlock shedlock = new Shedlock();
    private final Integration integration = new Integration();

    public Client getClient() {
        return client;
    }

    public Issuer getIssuer() {
        return issuer;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public Shedlock getShedlock() {
        return shedlock;
    }

    public Integration getIntegration() {
        return integration;
    }

    /** Spring Integration's LockRegistry on the lease issuer (module fencegate-spring-integration). */
    public static class Integration {
        /** Create a FencedLockRegistry bean when there is a LeaseIssuer and no other LockRegistry. */
        private boolean enabled = true;
        /** The lease's ttl: how long a crashed or paused holder keeps the lock. */
        private Duration ttl = Duration.ofSeconds(30);
        /** Renew held leases every ttl/3; false: the holder renews through renewLock. */
        private boolean keepAlive = true;
        /** Put before each key to make the lock's name, e.g. "integration/". */
        private String lockPrefix = "";

        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        public Duration getTtl() { return ttl; }
        public void setTtl(Duration ttl) { this.ttl = ttl; }
        public boolean isKeepAlive() { return keepAlive; }
        public void setKeepAlive(boolean keepAlive) { this.keepAlive = keepAlive; }
        public String getLockPrefix() { return lockPrefix; }
        public void setLockPrefix(String lockPrefix) { this.lockPrefix = lockPrefix; }
    }

    /** ShedLock's LockProvider on the lease issuer (module fencegate-shedlock). */
    public static class Shedlock {
        /** Create a FencedLockProvider bean when there is a LeaseIssuer and no other LockProvider. */
        private boolean enabled = true;
        /** Put before every job's lock name, e.g. "jobs/": jobs then share one metrics prefix. */
        private String lockPrefix = "";
        /** Bound on one acquire or release call to the issuer. */
        private Duration callTimeout = Duration.ofSeconds(10);

        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        public String getLockPrefix() { return lockPrefix; }
        public void setLockPrefix(String lockPrefix) { this.lockPrefix = lockPrefix; }
        public Duration getCallTimeout() { return callTimeout; }
        public void setCallTimeout(Duration callTimeout) { this.callTimeout = callTimeout; }
    }

    /** The HTTP client of a fencegate gateway (module fencegate-client). */
    public static class Client {
        /** Base URL of the gateway, e.g. http://127.0.0.1:8080. Setting it creates a FencegateClient bean. */
        private URI url;
        /** Sent as "Authorization: Bearer <key>" on every call. */
        private String apiKey;
        /** Bound on every call (connect and response). */
        private Duration timeout = Duration.ofSeconds(10);

        public URI getUrl() { return url; }
        public void setUrl(URI url) { this.url = url; }
        public String getApiKey() { return apiKey; }
        public void setApiKey(String apiKey) { this.apiKey = apiKey; }
        public Duration getTimeout() { return timeout; }
        public void setTimeout(Duration timeout) { this.timeout = timeout; }
    }

    /** The in-process lease issuer (library use, no gateway). */
    public static class Issuer {
        /**
         * Which backend grants leases: "zookeeper", "redis", "sql", or the name of a backend another module
         * contributes as a LeaseIssuerBackend bean. Unset: no LeaseIssuer bean is created.
         */
        private String backend;
        private final ZooKeeper zookeeper = new ZooKeeper();
        private final Redis redis = new Redis();
        private final Sql sql = new Sql();

        public String getBackend() { return backend; }
        public void setBackend(String backend) { this.backend = backend; }
        public ZooKeeper getZookeeper() { return zookeeper; }
        public Redis getRedis() { return redis; }
        public Sql getSql() { return sql; }
    }

    /** The ZooKeeper backend (module fencegate-issuer-zookeeper). */
    public static class ZooKeeper {
        /** The ensemble, e.g. zk1:2181,zk2:2181,zk3:2181. Required for this backend. */
        private String connectString;
        /** Root znode of fencegate's locks; issuers that share leases share it. */
        private String root = "/fencegate";
        /** How tokens are derived: ZXID (unique across locks) or CVERSION (dense per lock). */
        private TokenModeName tokenMode = TokenModeName.ZXID;
        /** Session timeout; losing the session ends every lease this issuer granted. */
        private Duration sessionTimeout = Duration.ofSeconds(15);
        /** Bound on every ZooKeeper call. */
        private Duration operationTimeout = Duration.ofSeconds(5);

        public String getConnectString() { return connectString; }
        public void setConnectString(String connectString) { this.connectString = connectString; }
        public String getRoot() { return root; }
        public void setRoot(String root) { this.root = root; }
        public TokenModeName getTokenMode() { return tokenMode; }
        public void setTokenMode(TokenModeName tokenMode) { this.tokenMode = tokenMode; }
        public Duration getSessionTimeout() { return sessionTimeout; }
        public void setSessionTimeout(Duration sessionTimeout) { this.sessionTimeout = sessionTimeout; }
        public Duration getOperationTimeout() { return operationTimeout; }
        public void setOperationTimeout(Duration operationTimeout) { this.operationTimeout = operationTimeout; }
    }

    /** Token modes of the ZooKeeper backend, named here so this class loads without the backend. */
    public enum TokenModeName { ZXID, CVERSION }

    /** The Redis backend (module fencegate-issuer-redis): one single-master Redis. */
    public static class Redis {
        /** Redis URI of the single master. Required for this backend. */
        private String uri;
        /** Prefix of every key this issuer uses; issuers sharing leases share it. */
        private String keyPrefix = "fencegate:";
        /**
         * The durable token high-water mark as a file (shared by every issuer on this Redis and prefix).
         * Exactly one of this and high-water-mark-table must be set.
         */
        private Path highWaterMarkFile;
        /** Keep the token high-water mark in the table fencegate_token_mark of the application's DataSource. */
        private boolean highWaterMarkTable;
        /** Upper bound of one Redis command. */
        private Duration commandTimeout = Duration.ofSeconds(2);

        public String getUri() { return uri; }
        public void setUri(String uri) { this.uri = uri; }
        public String getKeyPrefix() { return keyPrefix; }
        public void setKeyPrefix(String keyPrefix) { this.keyPrefix = keyPrefix; }
        public Path getHighWaterMarkFile() { return highWaterMarkFile; }
        public void setHighWaterMarkFile(Path highWaterMarkFile) { this.highWaterMarkFile = highWaterMarkFile; }
        public boolean isHighWaterMarkTable() { return highWaterMarkTable; }
        public void setHighWaterMarkTable(boolean highWaterMarkTable) { this.highWaterMarkTable = highWaterMarkTable; }
        public Duration getCommandTimeout() { return commandTimeout; }
        public void setCommandTimeout(Duration commandTimeout) { this.commandTimeout = commandTimeout; }
    }

    /**
     * The SQL backend (module fencegate-issuer-sql): leases from PostgreSQL, MariaDB/MySQL or H2
     * alone, on the application's DataSource unless a jdbc-url is set.
     */
    public static class Sql {
        /** A JDBC URL for a pool of the issuer's own; unset: the issuer uses the application's single DataSource. */
        private String jdbcUrl;
        /** User of the issuer's own pool (with jdbc-url). */
        private String username;
        /** Password of the issuer's own pool (with jdbc-url). */
        private String password;
        /**
         * The issuer's JDBC threads, so the most connections it uses at once (2 to 200); on PostgreSQL
         * it also holds one connection for LISTEN while notifications are on.
         */
        private int poolSize = 8;
        /** Bound on every statement (whole seconds, at least 1 s). */
        private Duration statementTimeout = Duration.ofSeconds(5);
        /** Bound on getting a connection from the issuer's own pool (with jdbc-url). */
        private Duration connectTimeout = Duration.ofSeconds(5);
        /** How long a grant is remembered for token checks (one row per grant); a lock's current token always is. */
        private Duration grantRetention = Duration.ofDays(1);
        /** The name listings show for leases granted here; unset: host/pid. */
        private String instanceName;
        /** PostgreSQL: wake the next waiter at once on release (LISTEN/NOTIFY); false behind a transaction-mode pooler. */
        private boolean notifications = true;
        /** Apply the issuer's migrations (fencegate_lock_fence, fencegate_lease_grant, fencegate_lease_waiter) at start. */
        private boolean migrate = true;

        public String getJdbcUrl() { return jdbcUrl; }
        public void setJdbcUrl(String jdbcUrl) { this.jdbcUrl = jdbcUrl; }
        public String getUsername() { return username; }
        public void setUsername(String username) { this.username = username; }
        public String getPassword() { return password; }
        public void setPassword(String password) { this.password = password; }
        public int getPoolSize() { return poolSize; }
        public void setPoolSize(int poolSize) { this.poolSize = poolSize; }
        public Duration getStatementTimeout() { return statementTimeout; }
        public void setStatementTimeout(Duration statementTimeout) { this.statementTimeout = statementTimeout; }
        public Duration getConnectTimeout() { return connectTimeout; }
        public void setConnectTimeout(Duration connectTimeout) { this.connectTimeout = connectTimeout; }
        public Duration getGrantRetention() { return grantRetention; }
        public void setGrantRetention(Duration grantRetention) { this.grantRetention = grantRetention; }
        public String getInstanceName() { return instanceName; }
        public void setInstanceName(String instanceName) { this.instanceName = instanceName; }
        public boolean isNotifications() { return notifications; }
        public void setNotifications(boolean notifications) { this.notifications = notifications; }
        public boolean isMigrate() { return migrate; }
        public void setMigrate(boolean migrate) { this.migrate = migrate; }
    }

    /** Guarded SQL on the application's own DataSource (module fencegate-store-jdbc). */
    public static class Jdbc {
        /** Create GuardRowTransactions and TokenColumnGuard beans when the application has one DataSource. */
        private boolean enabled = true;
        /** Apply fencegate's Flyway migrations (fencegate_fence, fencegate_token_mark, ...) at start. */
        private boolean migrate = true;
        /**
         * PostgreSQL: the schema that holds fencegate's tables and their Flyway history on the
         * application's DataSource (the SQL issuer's too), created if missing, apart from the
         * application's own; it must be on the connections' search path
         * (jdbc:postgresql://host/db?currentSchema=public,fencegate). Unset: the default schema.
         */
        private String schema;
        /** STRICT (one write per token) or SAME_LEASE (a lease may write an item many times). */
        private GuardRuleName guardRule = GuardRuleName.STRICT;
        /** Column of the application's rows that holds the token of their last write. */
        private String tokenColumn = "token";
        /** Column holding the fence of fenced reads; unset: writes are guarded, reads cannot be fenced. */
        private String fenceColumn;

        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        public boolean isMigrate() { return migrate; }
        public void setMigrate(boolean migrate) { this.migrate = migrate; }
        public String getSchema() { return schema; }
        /** Blank is unset, so a profile can put fencegate back into the default schema. */
        public void setSchema(String schema) { this.schema = schema == null || schema.isBlank() ? null : schema.strip(); }
        public GuardRuleName getGuardRule() { return guardRule; }
        public void setGuardRule(GuardRuleName guardRule) { this.guardRule = guardRule; }
        public String getTokenColumn() { return tokenColumn; }
        public void setTokenColumn(String tokenColumn) { this.tokenColumn = tokenColumn; }
        public String getFenceColumn() { return fenceColumn; }
        public void setFenceColumn(String fenceColumn) { this.fenceColumn = fenceColumn; }
    }

    /** Guard rules, named here so this class loads without fencegate-store-api. */
    public enum GuardRuleName { STRICT, SAME_LEASE }
}
