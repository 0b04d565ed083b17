package io.fencegate.bench;

import org.HdrHistogram.Histogram;

/**
 * One measured run of one contender: operations completed in the measured window, the window's
 * length, the latency of each operation in microseconds, and how many operations each worker did
 * (for fairness under contention).
 */
public record Sample(long ops, double seconds, Histogram latencyMicros, long[] perWorker) {

    public double throughput() {
        return seconds <= 0 ? 0 : ops / seconds;
    }

    public double p50Millis() {
        return latencyMicros.getTotalCount() == 0 ? Double.NaN : latencyMicros.getValueAtPercentile(50) / 1000.0;
    }

    public double p99Millis() {
        return latencyMicros.getTotalCount() == 0 ? Double.NaN : latencyMicros.getValueAtPercentile(99) / 1000.0;
    }

    /** Fewest operations of one worker over the most of one (1 = perfectly even); NaN for one worker. */
    public double fairness() {
        if (perWorker == null || perWorker.length < 2) {
            return Double.NaN;
        }
        long min = Long.MAX_VALUE;
        long max = 0;
        for (long n : perWorker) {
            min = Math.min(min, n);
            max = Math.max(max, n);
        }
        return max == 0 ? Double.NaN : (double) min / max;
    }

    static Histogram newHistogram() {
        return new Histogram(3_600_000_000L, 3); // up to an hour, in µs, 3 significant digits
    }
}
