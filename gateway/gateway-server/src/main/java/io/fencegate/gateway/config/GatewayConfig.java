package io.fencegate.gateway.config;

import io.fencegate.gateway.auth.AuthConfig;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code fencegate.yaml}, as read by {@link ConfigLoader}. Every section is optional except
 * {@code issuer} and {@code stores}; unknown keys are errors. See docs/gateway.md for an example.
 */
public record GatewayConfig(
        Server server, Limits limits, AuthConfig auth, Issuer issuer, Map<String, Store> stores) {

    public GatewayConfig {
        server = server == null ? new Server(null, null, null, null) : server;
        limits = limits == null ? new Limits(null, null, null, null, null) : limits;
        auth = auth == null ? AuthConfig.NONE : auth;
        stores = stores == null ? Map.of() : new LinkedHashMap<>(stores);
    }

    /**
     * {@code host} default 127.0.0.1, {@code port} default 8080, optional PEM {@code tls},
     * {@code eventLoops} default one per CPU.
     */
    public record Server(String host, Integer port, Tls tls, Integer eventLoops) {}

    public record Tls(String certPath, String keyPath) {}

    /** Durations as {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}. */
    public record Limits(Long maxBodyBytes, Integer maxKeyBytes, String requestTimeout, String maxTtl, String maxWait) {}

    /**
     * {@code type}: {@code zookeeper} (connectString, root, tokenMode zxid|cversion, sessionTimeout,
     * operationTimeout, forgetIdleLocksAfter), {@code redis} (uri, keyPrefix, and the token high-water mark: either
     * highWaterMarkFile, for one host, or highWaterMarkUrl/User/Password, a JDBC database every
     * gateway shares) or {@code embedded-zookeeper} (dataDir: an in-process ZooKeeper server, for
     * one gateway).
     */
    public record Issuer(
            String type, String connectString, String root, String tokenMode, String sessionTimeout,
            String operationTimeout, String uri, String keyPrefix, String highWaterMarkFile, String dataDir,
            String highWaterMarkUrl, String highWaterMarkUser, String highWaterMarkPassword,
            String forgetIdleLocksAfter) {}

    /**
     * {@code type}: {@code postgres} (host, port, database, schema, user, password, poolSize,
     * queryTimeout: the reactive Postgres store), {@code jdbc} (url, user, password, poolSize,
     * queryTimeout: MariaDB/MySQL, Postgres or H2, by the URL) or {@code files} (dir, which must
     * exist). {@code rule}: strict
     * (default) or same-lease. {@code lock}: one lock for every item (default: each item's own lock
     * {@code {store}/{key}}). {@code statements}: name to SQL with {@code :param} placeholders, for
     * SQL stores.
     */
    public record Store(
            String type, String rule, String lock, Map<String, String> statements,
            String url, String user, String password, Integer poolSize, String queryTimeout, String dir,
            String host, Integer port, String database, String schema) {

        public Store {
            statements = statements == null ? Map.of() : new LinkedHashMap<>(statements);
        }
    }
}
