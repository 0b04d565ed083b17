package io.fencegate.issuer.redis;

import java.time.Duration;
import java.util.Objects;

/** Settings of a {@link RedisLeaseIssuer}; validated once, when the issuer is created. */
public final class RedisIssuerOptions {

    private String uri = "redis://127.0.0.1:6379";
    private String keyPrefix = "fencegate:";
    private TokenHighWaterMark highWaterMark;
    private Duration commandTimeout = Duration.ofSeconds(2);
    // Why 5 s: it bounds the TCP connect and the handshake (HELLO) together, and a cold JVM on a
    // busy host missed 2 s at start-up, so the gateway refused to start with Redis up.
    private Duration connectTimeout = Duration.ofSeconds(5);
    private long tokenBlock = 1000;
    private int grantsKeptPerLock = 1000;
    private Duration grantRetention = Duration.ofDays(7);
    private String instanceName = io.fencegate.issuer.backend.InstanceNames.defaultName();

    /** How listings name this instance as the grantor of its leases (default {@code host/pid}). */
    public RedisIssuerOptions instanceName(String instanceName) {
        this.instanceName = instanceName;
        return this;
    }

    public String instanceName() {
        return instanceName;
    }

    /** Redis URI of the single master, e.g. {@code redis://:password@127.0.0.1:6379/0}. */
    public RedisIssuerOptions uri(String uri) {
        this.uri = uri;
        return this;
    }

    /** Prefix of every key and channel this issuer uses; issuers sharing leases share the prefix. */
    public RedisIssuerOptions keyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
        return this;
    }

    /** Required: the durable token bound, shared by every issuer on this Redis and prefix. */
    public RedisIssuerOptions highWaterMark(TokenHighWaterMark highWaterMark) {
        this.highWaterMark = highWaterMark;
        return this;
    }

    /** Upper bound of one Redis command, queueing included. */
    public RedisIssuerOptions commandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
        return this;
    }

    public RedisIssuerOptions connectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
        return this;
    }

    /** How many tokens one durable write of the high-water mark reserves. */
    public RedisIssuerOptions tokenBlock(long tokenBlock) {
        this.tokenBlock = tokenBlock;
        return this;
    }

    /** How many of a lock's latest grants {@code wasGranted} remembers. */
    public RedisIssuerOptions grantsKeptPerLock(int grantsKeptPerLock) {
        this.grantsKeptPerLock = grantsKeptPerLock;
        return this;
    }

    /** How long a lock's grant record outlives its last acquire or renew. */
    public RedisIssuerOptions grantRetention(Duration grantRetention) {
        this.grantRetention = grantRetention;
        return this;
    }

    String uri() { return uri; }
    String keyPrefix() { return keyPrefix; }
    TokenHighWaterMark highWaterMark() { return highWaterMark; }
    Duration commandTimeout() { return commandTimeout; }
    Duration connectTimeout() { return connectTimeout; }
    long tokenBlock() { return tokenBlock; }
    int grantsKeptPerLock() { return grantsKeptPerLock; }
    Duration grantRetention() { return grantRetention; }

    void validate() {
        require(uri != null && !uri.isBlank() && parses(uri), "uri", uri);
        require(keyPrefix != null && !keyPrefix.isEmpty(), "keyPrefix", keyPrefix);
        require(highWaterMark != null, "highWaterMark", null);
        io.fencegate.issuer.backend.InstanceNames.check(instanceName);
        requirePositive(commandTimeout, "commandTimeout");
        requirePositive(connectTimeout, "connectTimeout");
        require(tokenBlock > 0 && tokenBlock <= 1_000_000_000L, "tokenBlock", tokenBlock);
        require(grantsKeptPerLock > 0, "grantsKeptPerLock", grantsKeptPerLock);
        requirePositive(grantRetention, "grantRetention");
    }

    private static boolean parses(String uri) {
        try {
            io.lettuce.core.RedisURI.create(uri);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static void requirePositive(Duration value, String key) {
        require(value != null && !value.isNegative() && !value.isZero(), key, value);
    }

    private static void require(boolean ok, String key, Object value) {
        if (!ok) {
            throw new IllegalArgumentException("redis issuer option '" + key + "' is invalid: " + Objects.toString(value));
        }
    }
}
