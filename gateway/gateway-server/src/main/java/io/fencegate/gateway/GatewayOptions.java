package io.fencegate.gateway;

import io.fencegate.gateway.auth.AuthConfig;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How the HTTP side of the gateway behaves. Fluent setters; {@link #validate()} runs once at start
 * and names the bad setting.
 */
public final class GatewayOptions {
    private String host = "127.0.0.1";
    private int port = 8080;
    private long maxBodyBytes = 16L * 1024 * 1024;
    private int maxKeyBytes = 1024;
    private Duration requestTimeout = Duration.ofSeconds(30);
    private Duration maxTtl = Duration.ofHours(1);
    private Duration maxWait = Duration.ofSeconds(60);
    private Duration drainTimeout = Duration.ofSeconds(10);
    private int eventLoops = Runtime.getRuntime().availableProcessors();
    private AuthConfig auth = AuthConfig.NONE;
    private Tls tls;
    private Map<String, Duration> lockDelays = Map.of();
    private boolean ui = true;
    private final GatewayLimits limits = new GatewayLimits();
    private KeyShares keyShares = new KeyShares();
    /** Longest lock-delay: ZooKeeper's idle-lock sweeper may remove a lock's nodes 10 min after its last lease. */
    static final Duration MAX_LOCK_DELAY = Duration.ofMinutes(5);

    /** A PEM certificate chain and its private key. */
    public record Tls(String certPath, String keyPath) {}

    public String host() { return host; }
    public GatewayOptions host(String host) { this.host = host; return this; }

    /** 0 picks a free port (tests); {@link Gateway#port()} tells which. */
    public int port() { return port; }
    public GatewayOptions port(int port) { this.port = port; return this; }

    /** Largest PUT body; larger is 413 (the store's own value limit may be lower still). */
    public long maxBodyBytes() { return maxBodyBytes; }
    public GatewayOptions maxBodyBytes(long maxBodyBytes) { this.maxBodyBytes = maxBodyBytes; return this; }

    /** Longest item key, in UTF-8 bytes, after percent-decoding; longer is 400. */
    public int maxKeyBytes() { return maxKeyBytes; }
    public GatewayOptions maxKeyBytes(int maxKeyBytes) { this.maxKeyBytes = maxKeyBytes; return this; }

    /** A request still unanswered after this gets 503 (a lease's waitMs comes on top). */
    public Duration requestTimeout() { return requestTimeout; }
    public GatewayOptions requestTimeout(Duration requestTimeout) { this.requestTimeout = requestTimeout; return this; }

    /** Longest lease ttl a client may ask for. */
    public Duration maxTtl() { return maxTtl; }
    public GatewayOptions maxTtl(Duration maxTtl) { this.maxTtl = maxTtl; return this; }

    /** Longest waitMs a client may ask for. */
    public Duration maxWait() { return maxWait; }
    public GatewayOptions maxWait(Duration maxWait) { this.maxWait = maxWait; return this; }

    /** How long a shutdown waits for requests in flight. */
    public Duration drainTimeout() { return drainTimeout; }
    public GatewayOptions drainTimeout(Duration drainTimeout) { this.drainTimeout = drainTimeout; return this; }

    /** How many event loops serve HTTP: one server instance each, sharing the port. */
    public int eventLoops() { return eventLoops; }
    public GatewayOptions eventLoops(int eventLoops) { this.eventLoops = eventLoops; return this; }

    public AuthConfig auth() { return auth; }
    public GatewayOptions auth(AuthConfig auth) { this.auth = Objects.requireNonNull(auth); return this; }

    /**
     * Lock-delay per lock prefix (config {@code leases.lockDelay}): after a lease on a lock under
     * the prefix ends involuntarily (expiry, lost session), the issuer grants that lock to nobody
     * until the delay has passed. The longest matching prefix wins; no match is no delay.
     */
    public Map<String, Duration> lockDelays() { return lockDelays; }
    public GatewayOptions lockDelays(Map<String, Duration> lockDelays) {
        this.lockDelays = Map.copyOf(Objects.requireNonNull(lockDelays));
        return this;
    }

    /** The lock-delay a new lease on {@code lock} is granted with. */
    public Duration lockDelayFor(String lock) {
        Duration delay = Duration.ZERO;
        int longest = -1;
        for (Map.Entry<String, Duration> e : lockDelays.entrySet()) {
            if (lock.startsWith(e.getKey()) && e.getKey().length() > longest) {
                longest = e.getKey().length();
                delay = e.getValue();
            }
        }
        return delay;
    }

    /** Whether {@code GET /ui} (the live status page) is served; config {@code server.ui}, default true. */
    public boolean ui() { return ui; }
    public GatewayOptions ui(boolean ui) { this.ui = ui; return this; }

    /** The bounds on what a client may make the gateway hold (config {@code limits:}): bodies, temporary disk, HTTP parsing. */
    public GatewayLimits limits() { return limits; }
    /** Each API key's share of streams, watched leases, waiters, live leases, requests in flight and lock names (config {@code limits.perKey}). */
    public KeyShares keyShares() { return keyShares; }
    public GatewayOptions keyShares(KeyShares keyShares) { this.keyShares = Objects.requireNonNull(keyShares); return this; }

    /** Null: plain HTTP. */
    public Tls tls() { return tls; }
    public GatewayOptions tls(Tls tls) { this.tls = tls; return this; }

    /**
     * Checks every setting; the message names the setting and the bad value.
     *
     * @throws IllegalArgumentException on the first problem
     */
    public GatewayOptions validate() {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("server.host is empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("server.port must be 0..65535, was " + port);
        }
        if (eventLoops < 1 || eventLoops > 1024) {
            throw new IllegalArgumentException("server.eventLoops must be 1..1024, was " + eventLoops);
        }
        positive("limits.maxBodyBytes", maxBodyBytes);
        positive("limits.maxKeyBytes", maxKeyBytes);
        positive("limits.requestTimeout", requestTimeout.toMillis());
        if (maxTtl.toMillis() < 100) {
            throw new IllegalArgumentException("limits.maxTtl must be at least 100ms, was " + maxTtl);
        }
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("limits.maxWait must not be negative, was " + maxWait);
        }
        for (Map.Entry<String, Duration> e : lockDelays.entrySet()) {
            if (e.getValue().isNegative() || e.getValue().compareTo(MAX_LOCK_DELAY) > 0) {
                throw new IllegalArgumentException("leases.lockDelay.\"" + e.getKey() + "\" must be from 0 to "
                        + MAX_LOCK_DELAY.toMinutes() + "m, was " + e.getValue());
            }
        }
        limits.validate(maxBodyBytes, maxKeyBytes);
        keyShares.validate(limits.lockNameBytes());
        auth.validate();
        if (!auth.enabled() && !isLoopback(host)) {
            throw new IllegalArgumentException("server.host is '" + host
                    + "', not a loopback address: configure auth.keys before binding it (see `fencegate hash-key`)");
        }
        if (tls != null && (tls.certPath() == null || tls.keyPath() == null)) {
            throw new IllegalArgumentException("server.tls needs both certPath and keyPath");
        }
        return this;
    }

    private static void positive(String key, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(key + " must be positive, was " + value);
        }
    }

    /** "localhost" and 127.0.0.0/8, ::1 are loopback; anything else (0.0.0.0 included) is not. */
    static boolean isLoopback(String host) {
        if (host.equals("localhost")) {
            return true;
        }
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
