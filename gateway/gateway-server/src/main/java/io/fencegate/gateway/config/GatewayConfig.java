package io.fencegate.gateway.config;

import io.fencegate.gateway.auth.AuthConfig;
import io.fencegate.issuer.spi.IssuerSettings;
import io.fencegate.spi.ExclusivePath;
import io.fencegate.store.spi.StoreSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code fencegate.yaml}, as read by {@link ConfigLoader}. Every section is optional except
 * {@code issuer} and {@code stores}; unknown keys are errors. See docs/gateway.md for an example.
 *
 * @param issuer the issuer's settings, the record of the provider its {@code type} names
 *               ({@link IssuerProviders})
 * @param stores each store's settings, the record of the provider its {@code type} names
 *               ({@link StoreProviders}), in config order
 * @param localState exclusive local state of the gateway itself, beyond its backends' own (the
 *               embedded default's data directory); never a key of {@code fencegate.yaml}
 */
public record GatewayConfig(
        Server server, Limits limits, AuthConfig auth, IssuerSettings issuer, Map<String, StoreSettings> stores,
        Leases leases, List<ExclusivePath> localState) {

    public GatewayConfig {
        server = server == null ? new Server(null, null, null, null, null) : server;
        limits = limits == null ? new Limits(null, null, null, null, null) : limits;
        auth = auth == null ? AuthConfig.NONE : auth;
        stores = stores == null ? Map.of() : new LinkedHashMap<>(stores);
        leases = leases == null ? new Leases(null) : leases;
        localState = localState == null ? List.of() : List.copyOf(localState);
    }

    /** A configuration file's sections: no local state beyond the backends'. */
    public GatewayConfig(Server server, Limits limits, AuthConfig auth, IssuerSettings issuer,
            Map<String, StoreSettings> stores, Leases leases) {
        this(server, limits, auth, issuer, stores, leases, null);
    }

    /** The sections before {@code leases} existed. */
    public GatewayConfig(Server server, Limits limits, AuthConfig auth, IssuerSettings issuer,
            Map<String, StoreSettings> stores) {
        this(server, limits, auth, issuer, stores, null, null);
    }

    /**
     * {@code host} default 127.0.0.1, {@code port} default 8080, optional PEM {@code tls},
     * {@code eventLoops} default one per CPU, {@code ui} (the status page at {@code /ui}) default true.
     */
    public record Server(String host, Integer port, Tls tls, Integer eventLoops, Boolean ui) {}

    public record Tls(String certPath, String keyPath) {}

    /** Durations as {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}. */
    /**
     * {@code lockDelay}: lock prefix to duration ({@code "orders/": 5s}); the longest prefix of a
     * lock names its delay, default none. See {@code GatewayOptions#lockDelays}.
     */
    public record Leases(Map<String, String> lockDelay) {
        public Leases {
            lockDelay = lockDelay == null ? Map.of() : new LinkedHashMap<>(lockDelay);
        }
    }

    /**
     * The request limits, and the bounds of {@code GatewayLimits} (bodies in the heap and each API
     * key's share, a body's idle and total timeouts, temporary disk and each key's share, HTTP
     * parsing, transactions across items, batches of writes); unset is the documented default. {@code perKey}: each API key's share of streams,
     * watched leases, waiting acquires and live leases ({@code KeyShares}; defaults there).
     */
    public record Limits(Long maxBodyBytes, Integer maxKeyBytes, String requestTimeout, String maxTtl, String maxWait,
                         Long bodyBudgetBytes, Long bodyBudgetPerKeyBytes, String bodyIdleTimeout, String bodyTimeout,
                         Long tempDiskBytes, Long tempDiskPerKeyBytes, Integer maxInitialLineLength, Integer maxHeaderBytes,
                         PerKey perKey, Integer maxTransactionItems, Long maxTransactionBytes,
                         Long lockNameBytes, String lockNameWindow, Integer maxBatchWrites, Long maxBatchBytes) {
        public Limits {
            perKey = perKey == null ? new PerKey(null, null, null, null, null, null, null, null, null) : perKey;
        }

        /** The request limits alone. */
        public Limits(Long maxBodyBytes, Integer maxKeyBytes, String requestTimeout, String maxTtl, String maxWait) {
            this(maxBodyBytes, maxKeyBytes, requestTimeout, maxTtl, maxWait, null, null, null, null, null, null, null, null,
                    null, null, null, null, null, null, null);
        }
    }

    /** {@code limits.perKey}: see {@code io.fencegate.gateway.KeyShares} for each share and its default. */
    public record PerKey(Integer watchStreams, Integer watchedLeases, Integer statusStreams, Integer keylessStatusStreams,
                         Integer waiters, Integer leases, Long lockNameBytes, Integer requests, Integer keylessRequests) {}
}
