package io.fencegate.check;

import java.util.Locale;

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
    BYPASS_GUARD;

    public static Control parse(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "none" -> NONE;
            case "plain-reads" -> PLAIN_READS;
            case "bypass-guard" -> BYPASS_GUARD;
            default -> throw new IllegalArgumentException("--control: expected none, plain-reads or bypass-guard, got '" + s + "'");
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
