package io.fencegate.bench;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What the write benchmarks write and where: one value for every contender, so they compare on the
 * same payload, into a schema or database of the run's own, so a run never meets an earlier one's rows.
 */
final class WriteBenchData {
    /** Every write's value: 100 bytes. Shared by all contenders; never modified. */
    static final byte[] VALUE = "a".repeat(100).getBytes(StandardCharsets.US_ASCII);

    private WriteBenchData() {}

    /** A fresh schema or database name (lower case, a valid unquoted SQL identifier). */
    static String freshNamespace() {
        return "bench_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 8);
    }
}
