package io.fencegate.check;

import java.util.Map;

/**
 * A deliberately broken client, to show the checker can fail. A control run that finds no anomaly
 * proves nothing, and the run says so (exit 2).
 */
public enum Control {
    /** The honest client: fenced reads, guarded writes. */
    NONE,
    /** Reads without a token: a paused holder's read-modify-write loses the next holder's update. */
    PLAIN_READS,
    /** Writes straight into the store's table over JDBC, past the guard: stale writes are acknowledged. */
    BYPASS_GUARD,
    /**
     * The semaphore's holders ask the issuer for N+1 permits while the checker holds the run to N: an
     * issuer that hands out one permit too many, planted in the client.
     */
    OVER_GRANT;

    public static Control parse(String s) {
        return OptionEnums.parse(Control.class, "--control", s, Map.of());
    }

    public String label() {
        return OptionEnums.label(this);
    }
}
