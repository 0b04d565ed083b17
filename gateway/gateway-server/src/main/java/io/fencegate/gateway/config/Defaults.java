package io.fencegate.gateway.config;

import io.fencegate.gateway.GatewayLimits;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.issuer.spi.IssuerSettings;
import io.fencegate.spi.ExclusivePath;
import io.fencegate.store.spi.StoreSettings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The embedded default, and the translation of a config's server and limits into {@link GatewayOptions}. */
public final class Defaults {
    private Defaults() {}

    /**
     * {@code fencegate serve} without a config: an in-process ZooKeeper, an H2 store {@code main}
     * and a files store {@code files}, all under {@code data}; loopback, no auth. Nothing is
     * created here: the data directory is claimed whole first (one gateway per data directory,
     * see {@link Backends#open}), and only then are its {@code files/}, {@code h2/} and
     * {@code zookeeper/} made.
     */
    public static GatewayConfig embedded(Path data) {
        Path root = data.toAbsolutePath().normalize();
        Map<String, StoreSettings> stores = new LinkedHashMap<>();
        stores.put("main", ConfigLoader.store("jdbc",
                Map.of("url", "jdbc:h2:file:" + root.resolve("h2").resolve("main"), "user", "sa", "password", "", "rule", "strict")));
        stores.put("files", ConfigLoader.store("files", Map.of("dir", root.resolve("files").toString(), "rule", "strict")));
        // Bound like a config file's section: the gateway names the type, issuer-zookeeper provides it.
        IssuerSettings issuer = ConfigLoader.issuer(Map.of("type", "embedded-zookeeper",
                "dataDir", root.resolve("zookeeper").toString()));
        ExclusivePath dataDir = ExclusivePath.directory(null, "data directory", root, "files");
        return new GatewayConfig(null, null, null, issuer, stores, null, List.of(dataDir));
    }

    /** The HTTP options a config asks for (validated when the gateway starts). */
    public static GatewayOptions options(GatewayConfig config) {
        GatewayOptions o = new GatewayOptions().auth(config.auth());
        GatewayConfig.Server s = config.server();
        Optional.ofNullable(s.host()).ifPresent(o::host);
        Optional.ofNullable(s.port()).ifPresent(o::port);
        Optional.ofNullable(s.eventLoops()).ifPresent(o::eventLoops);
        Optional.ofNullable(s.ui()).ifPresent(o::ui);
        if (s.tls() != null) {
            o.tls(new GatewayOptions.Tls(s.tls().certPath(), s.tls().keyPath()));
        }
        GatewayConfig.Limits l = config.limits();
        Optional.ofNullable(l.maxBodyBytes()).ifPresent(o::maxBodyBytes);
        Optional.ofNullable(l.maxKeyBytes()).ifPresent(o::maxKeyBytes);
        GatewayConfig.PerKey perKey = l.perKey();
        io.fencegate.gateway.KeyShares shares = o.keyShares();
        Optional.ofNullable(perKey.watchStreams()).ifPresent(shares::watchStreams);
        Optional.ofNullable(perKey.watchedLeases()).ifPresent(shares::watchedLeases);
        Optional.ofNullable(perKey.statusStreams()).ifPresent(shares::statusStreams);
        Optional.ofNullable(perKey.keylessStatusStreams()).ifPresent(shares::keylessStatusStreams);
        Optional.ofNullable(perKey.waiters()).ifPresent(shares::waiters);
        Optional.ofNullable(perKey.leases()).ifPresent(shares::leases);
        Optional.ofNullable(perKey.lockNameBytes()).ifPresent(shares::lockNameBytes);
        Optional.ofNullable(perKey.requests()).ifPresent(shares::requests);
        Optional.ofNullable(perKey.keylessRequests()).ifPresent(shares::keylessRequests);
        o.requestTimeout(Durations.parse("limits.requestTimeout", l.requestTimeout(), o.requestTimeout()));
        o.maxTtl(Durations.parse("limits.maxTtl", l.maxTtl(), o.maxTtl()));
        o.maxWait(Durations.parse("limits.maxWait", l.maxWait(), o.maxWait()));
        GatewayLimits bounds = o.limits();
        Optional.ofNullable(l.bodyBudgetBytes()).ifPresent(bounds::bodyBudgetBytes);
        Optional.ofNullable(l.bodyBudgetPerKeyBytes()).ifPresent(bounds::bodyBudgetPerKeyBytes);
        bounds.bodyIdleTimeout(Durations.parse("limits.bodyIdleTimeout", l.bodyIdleTimeout(), bounds.bodyIdleTimeout()));
        bounds.bodyTimeout(Durations.parse("limits.bodyTimeout", l.bodyTimeout(), bounds.bodyTimeout()));
        Optional.ofNullable(l.tempDiskBytes()).ifPresent(bounds::tempDiskBytes);
        Optional.ofNullable(l.tempDiskPerKeyBytes()).ifPresent(bounds::tempDiskPerKeyBytes);
        Optional.ofNullable(l.maxInitialLineLength()).ifPresent(bounds::maxInitialLineLength);
        Optional.ofNullable(l.maxHeaderBytes()).ifPresent(bounds::maxHeaderBytes);
        Optional.ofNullable(l.maxTransactionItems()).ifPresent(bounds::maxTransactionItems);
        Optional.ofNullable(l.maxTransactionBytes()).ifPresent(bounds::maxTransactionBytes);
        Optional.ofNullable(l.maxBatchWrites()).ifPresent(bounds::maxBatchWrites);
        Optional.ofNullable(l.maxBatchBytes()).ifPresent(bounds::maxBatchBytes);
        Optional.ofNullable(l.lockNameBytes()).ifPresent(bounds::lockNameBytes);
        bounds.lockNameWindow(Durations.parse("limits.lockNameWindow", l.lockNameWindow(), bounds.lockNameWindow()));
        Map<String, java.time.Duration> delays = new LinkedHashMap<>();
        config.leases().lockDelay().forEach((prefix, delay) ->
                delays.put(prefix, Durations.parse("leases.lockDelay.\"" + prefix + "\"", delay, java.time.Duration.ZERO)));
        o.lockDelays(delays);
        return o;
    }

}
