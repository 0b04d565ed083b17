package io.fencegate.gateway;

import io.fencegate.store.GuardedOp;
import java.time.Duration;

/**
 * Every bound on what a client can make the gateway hold, in one place (config {@code limits:},
 * docs/gateway.md "Limits"), besides the request limits of {@link GatewayOptions}
 * ({@code maxBodyBytes}, {@code maxKeyBytes}, {@code requestTimeout}, {@code maxTtl},
 * {@code maxWait}). Like Netty's {@code HttpServerCodec(maxInitialLineLength, maxHeaderSize,
 * maxChunkSize)} and Envoy's per-connection buffer limits: a bound inside a handler is a bound
 * nobody reviews. Fluent setters; 0 for the derived defaults; {@link #validate} runs at start.
 *
 * <ul>
 *   <li>HTTP parsing: the request line ({@link #maxInitialLineLength}, by default long enough for
 *       the longest key percent-encoded), the headers ({@link #maxHeaderBytes}), a body piece
 *       ({@link #maxChunkBytes}).</li>
 *   <li>Request bodies held in the heap ({@link #bodyBudgetBytes}) and each API key's share of
 *       them ({@link #bodyBudgetPerKeyBytes}); a body's pace ({@link #bodyIdleTimeout}) and its
 *       whole time ({@link #bodyTimeout}).</li>
 *   <li>Temporary disk of bodies streamed into a store ({@link #tempDiskBytes}) and each key's
 *       share ({@link #tempDiskPerKeyBytes}).</li>
 *   <li>Transactions across items and fenced multi-reads: items in one request
 *       ({@link #maxTransactionItems}), the bytes of its body ({@link #maxTransactionBytesFor}).</li>
 *   <li>Batches of independent writes: writes in one request ({@link #maxBatchWrites}), the
 *       bytes of its body ({@link #maxBatchBytesFor}).</li>
 *   <li>Lock names lately used through this gateway, in bytes ({@link #lockNameBytes}), each API
 *       key's share ({@code limits.perKey.lockNameBytes}, {@link KeyShares#lockNameBytes}) and how
 *       long a name counts ({@link #lockNameWindow}).</li>
 *   <li>Metric series ({@link #MAX_METER_SERIES}): labels come from closed sets.</li>
 * </ul>
 */
public final class GatewayLimits {
    /** The smallest body budget: one body of the default {@code maxBodyBytes}. */
    static final long MIN_BODY_BUDGET = 16L << 20;
    /**
     * Most meters the metrics registry keeps (JVM meters included): labels come from closed sets
     * (route patterns, seven methods and {@code other}, the statuses the gateway answers, configured
     * stores), which make far fewer; past it a new meter is dropped, never the heap.
     */
    public static final int MAX_METER_SERIES = 2000;

    private int maxInitialLineLength;
    private int maxHeaderBytes = 8192;
    private int maxChunkBytes = 64 * 1024;
    private long bodyBudgetBytes;
    private long bodyBudgetPerKeyBytes;
    private Duration bodyIdleTimeout = Duration.ofSeconds(10);
    private Duration bodyTimeout = Duration.ofSeconds(60);
    private long tempDiskBytes = 1L << 30;
    private long tempDiskPerKeyBytes;
    private int maxTransactionItems = 100;
    private long maxTransactionBytes;
    private int maxBatchWrites = 1000;
    private long maxBatchBytes;
    private long lockNameBytes = DEFAULT_LOCK_NAME_BYTES;
    private Duration lockNameWindow = Duration.ofMinutes(10);
    /** Default {@link #lockNameBytes}: a quarter of the ZooKeeper issuer's default {@code listingMaxBytes}. */
    public static final long DEFAULT_LOCK_NAME_BYTES = 16L << 20;

    /**
     * Longest request line (method, path, version), config {@code limits.maxInitialLineLength};
     * longer is 414. Default: room for a key of {@code maxKeyBytes} with every byte
     * percent-encoded, at least 4096 (Netty's default).
     */
    public int maxInitialLineLengthFor(int maxKeyBytes) {
        return maxInitialLineLength > 0 ? maxInitialLineLength : Math.max(4096, lineNeededFor(maxKeyBytes));
    }

    public GatewayLimits maxInitialLineLength(int bytes) { this.maxInitialLineLength = bytes; return this; }

    /** The request line a key of {@code maxKeyBytes}, every byte percent-encoded, needs on the longest route. */
    static int lineNeededFor(int maxKeyBytes) {
        return 3 * maxKeyBytes + 512; // method, "/v1/stores/{store}/items/", a query, " HTTP/1.1"
    }

    /** All headers of a request together, config {@code limits.maxHeaderBytes}, default 8192 (Netty's); more is 431. */
    public int maxHeaderBytes() { return maxHeaderBytes; }
    public GatewayLimits maxHeaderBytes(int bytes) { this.maxHeaderBytes = bytes; return this; }

    /** The largest piece a body arrives in, default 64 KiB (Netty's 8 KiB made eight times the per-piece work). */
    public int maxChunkBytes() { return maxChunkBytes; }
    public GatewayLimits maxChunkBytes(int bytes) { this.maxChunkBytes = bytes; return this; }

    /**
     * Bytes of request bodies held in the heap at once, config {@code limits.bodyBudgetBytes}:
     * every body read whole counts its declared length (a chunked one, the body limit), a body
     * streamed into a store what it may buffer. Default an eighth of the heap, at least 16 MiB.
     */
    public long bodyBudgetBytes() {
        return bodyBudgetBytes > 0 ? bodyBudgetBytes : Math.max(MIN_BODY_BUDGET, Runtime.getRuntime().maxMemory() / 8);
    }

    public GatewayLimits bodyBudgetBytes(long bytes) { this.bodyBudgetBytes = bytes; return this; }

    /**
     * What one API key's bodies may hold of {@link #bodyBudgetBytes} at once, config
     * {@code limits.bodyBudgetPerKeyBytes}; past it the key's next body is answered 429 with
     * {@code Retry-After}. Default half the budget, at least one largest body. Without auth there
     * is one caller, and it has the whole budget.
     */
    public long bodyBudgetPerKeyBytesFor(long maxBodyBytes) {
        return bodyBudgetPerKeyBytes > 0 ? bodyBudgetPerKeyBytes
                : Math.min(bodyBudgetBytes(), Math.max(bodyBudgetBytes() / 2, maxBodyBytes));
    }

    public GatewayLimits bodyBudgetPerKeyBytes(long bytes) { this.bodyBudgetPerKeyBytes = bytes; return this; }

    /** A body that sends nothing for this long is answered 408 and its bytes freed; config {@code limits.bodyIdleTimeout}, default 10s. */
    public Duration bodyIdleTimeout() { return bodyIdleTimeout; }
    public GatewayLimits bodyIdleTimeout(Duration timeout) { this.bodyIdleTimeout = timeout; return this; }

    /**
     * A body not whole this long after it was admitted is answered 408 and its bytes freed, however
     * steadily it trickles; config {@code limits.bodyTimeout}, default 60s (16 MiB at 2 Mbit/s).
     */
    public Duration bodyTimeout() { return bodyTimeout; }
    public GatewayLimits bodyTimeout(Duration timeout) { this.bodyTimeout = timeout; return this; }

    /**
     * Bytes of bodies being streamed into stores' temporary files at once, config
     * {@code limits.tempDiskBytes}, default 1 GiB: each streamed body claims its declared length
     * (a chunked one, the body limit) until it is committed or dropped.
     */
    public long tempDiskBytes() { return tempDiskBytes; }
    public GatewayLimits tempDiskBytes(long bytes) { this.tempDiskBytes = bytes; return this; }

    /** One API key's share of {@link #tempDiskBytes}, config {@code limits.tempDiskPerKeyBytes}, default half. */
    public long tempDiskPerKeyBytesFor(long maxBodyBytes) {
        return tempDiskPerKeyBytes > 0 ? tempDiskPerKeyBytes : Math.min(tempDiskBytes, Math.max(tempDiskBytes / 2, maxBodyBytes));
    }

    public GatewayLimits tempDiskPerKeyBytes(long bytes) { this.tempDiskPerKeyBytes = bytes; return this; }

    /**
     * Most items one transaction or fenced multi-read may name, config
     * {@code limits.maxTransactionItems}, default 100, at most {@link GuardedOp#MAX_ITEMS}: each
     * item is a lock held in the database and a grant looked up; more is 413.
     */
    public int maxTransactionItems() { return maxTransactionItems; }
    public GatewayLimits maxTransactionItems(int items) { this.maxTransactionItems = items; return this; }

    /**
     * Largest body of a transaction or fenced multi-read (JSON, values in it), config
     * {@code limits.maxTransactionBytes}, at most {@code limits.maxBodyBytes}; default 1 MiB, or
     * {@code maxBodyBytes} if that is lower. More is 413. The body is read whole, so it counts
     * against {@link #bodyBudgetBytes}.
     */
    public long maxTransactionBytesFor(long maxBodyBytes) {
        return maxTransactionBytes > 0 ? maxTransactionBytes : Math.min(1L << 20, maxBodyBytes);
    }

    public GatewayLimits maxTransactionBytes(long bytes) { this.maxTransactionBytes = bytes; return this; }

    /**
     * Most writes one batch ({@code POST /v1/stores/{store}/writes}) may carry, config
     * {@code limits.maxBatchWrites}, default 1000, at most {@link GuardedOp#MAX_ITEMS}: each write
     * is a grant looked up and a row judged; more is 413, nothing written.
     */
    public int maxBatchWrites() { return maxBatchWrites; }
    public GatewayLimits maxBatchWrites(int writes) { this.maxBatchWrites = writes; return this; }

    /**
     * Largest body of a batch of writes (JSON, values in it), config {@code limits.maxBatchBytes},
     * default 1 MiB, at most one API key's share of the body budget ({@link #bodyBudgetPerKeyBytesFor}):
     * the body is read whole, so it counts against {@link #bodyBudgetBytes}, and a larger one could
     * never be read. More is 413, nothing written. Each value in it still has the single write's
     * limit ({@code limits.maxBodyBytes}, the store's), so this may be larger than that.
     */
    public long maxBatchBytesFor(long maxBodyBytes) {
        return maxBatchBytes > 0 ? maxBatchBytes : Math.min(1L << 20, bodyBudgetPerKeyBytesFor(maxBodyBytes));
    }

    public GatewayLimits maxBatchBytes(long bytes) { this.maxBatchBytes = bytes; return this; }

    /**
     * Bytes of lock names this gateway's callers may have used lately, config
     * {@code limits.lockNameBytes}, default 16 MiB: each name counts {@code 4 + 4/3 × its UTF-8
     * bytes} (at least 64) from an acquire through this gateway until its ttl plus
     * {@link #lockNameWindow} after the last one; a name already counted costs nothing. A new name
     * past it is answered 503 with {@code Retry-After}. Why: idle locks stay in the issuer for a
     * while, and a ZooKeeper listing reads every lock name in one reply, which the issuer's
     * {@code listingMaxBytes} (default 64 MiB) must hold for all gateways together.
     */
    public long lockNameBytes() { return lockNameBytes; }
    public GatewayLimits lockNameBytes(long bytes) { this.lockNameBytes = bytes; return this; }

    /**
     * How long a lock name counts after its lease's ttl, config {@code limits.lockNameWindow},
     * default 10m: the ZooKeeper issuer's default {@code forgetIdleLocksAfter}, how long it keeps an
     * idle lock. Set them together.
     */
    public Duration lockNameWindow() { return lockNameWindow; }
    public GatewayLimits lockNameWindow(Duration window) { this.lockNameWindow = window; return this; }

    /** Checks every bound against the others and the request limits; the message names the key. */
    void validate(long maxBodyBytes, int maxKeyBytes) {
        notNegative("limits.maxInitialLineLength", maxInitialLineLength);
        if (maxInitialLineLength > 0 && maxInitialLineLength < lineNeededFor(maxKeyBytes)) {
            throw new IllegalArgumentException("limits.maxInitialLineLength " + maxInitialLineLength
                    + " cannot hold a key of limits.maxKeyBytes " + maxKeyBytes + " percent-encoded: it needs at least "
                    + lineNeededFor(maxKeyBytes) + " (or leave it unset)");
        }
        positive("limits.maxHeaderBytes", maxHeaderBytes);
        positive("limits.maxChunkBytes", maxChunkBytes);
        notNegative("limits.bodyBudgetBytes", bodyBudgetBytes);
        notNegative("limits.bodyBudgetPerKeyBytes", bodyBudgetPerKeyBytes);
        notNegative("limits.tempDiskBytes", tempDiskBytes);
        notNegative("limits.tempDiskPerKeyBytes", tempDiskPerKeyBytes);
        if (bodyBudgetPerKeyBytes > bodyBudgetBytes() || bodyBudgetPerKeyBytesFor(maxBodyBytes) < Math.min(maxBodyBytes, bodyBudgetBytes())) {
            throw new IllegalArgumentException("limits.bodyBudgetPerKeyBytes must be from limits.maxBodyBytes ("
                    + maxBodyBytes + ") to limits.bodyBudgetBytes (" + bodyBudgetBytes() + "), was " + bodyBudgetPerKeyBytes);
        }
        if (tempDiskPerKeyBytes > tempDiskBytes) {
            throw new IllegalArgumentException("limits.tempDiskPerKeyBytes must be at most limits.tempDiskBytes ("
                    + tempDiskBytes + "), was " + tempDiskPerKeyBytes);
        }
        if (maxTransactionItems < 1 || maxTransactionItems > GuardedOp.MAX_ITEMS) {
            throw new IllegalArgumentException("limits.maxTransactionItems must be 1.." + GuardedOp.MAX_ITEMS + ", was "
                    + maxTransactionItems);
        }
        if (maxTransactionBytes < 0 || maxTransactionBytes > maxBodyBytes) {
            throw new IllegalArgumentException("limits.maxTransactionBytes must be 1..limits.maxBodyBytes (" + maxBodyBytes
                    + "), was " + maxTransactionBytes);
        }
        if (maxBatchWrites < 1 || maxBatchWrites > GuardedOp.MAX_ITEMS) {
            throw new IllegalArgumentException("limits.maxBatchWrites must be 1.." + GuardedOp.MAX_ITEMS + ", was "
                    + maxBatchWrites);
        }
        if (maxBatchBytes < 0 || maxBatchBytes > bodyBudgetPerKeyBytesFor(maxBodyBytes)) {
            throw new IllegalArgumentException("limits.maxBatchBytes must be 1..limits.bodyBudgetPerKeyBytes ("
                    + bodyBudgetPerKeyBytesFor(maxBodyBytes) + "), was " + maxBatchBytes);
        }
        positive("limits.lockNameBytes", lockNameBytes);
        notNegative("limits.lockNameWindow", lockNameWindow.toMillis());
        positive("limits.bodyIdleTimeout", bodyIdleTimeout.toMillis());
        if (bodyTimeout.compareTo(bodyIdleTimeout) < 0) {
            throw new IllegalArgumentException("limits.bodyTimeout (" + bodyTimeout
                    + ") must be at least limits.bodyIdleTimeout (" + bodyIdleTimeout + ")");
        }
    }

    private static void positive(String key, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(key + " must be positive, was " + value);
        }
    }

    private static void notNegative(String key, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(key + " must not be negative, was " + value);
        }
    }
}
