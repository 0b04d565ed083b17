package io.fencegate.bench;

import java.time.Duration;

/**
 * How long and how often each contender runs. {@code full} is what docs/BENCHMARKS.md is made
 * from; {@code smoke} only proves that every contender runs and the report is written (CI runs it
 * in {@code mvn verify}; no timing is asserted anywhere). {@code jitWarmUp} is the most a freshly
 * launched gateway is loaded before its contenders run, until its JIT has settled ({@link JitWarmUp}).
 */
public record Profile(String name, Duration warmUp, Duration measure, int repetitions, Duration jitWarmUp) {

    public static final Profile FULL = new Profile("full", Duration.ofSeconds(1), Duration.ofSeconds(2), 3,
            Duration.ofSeconds(90));
    public static final Profile SMOKE = new Profile("smoke", Duration.ofMillis(100), Duration.ofMillis(250), 1,
            Duration.ZERO);

    public static Profile named(String name) {
        return switch (name) {
            case "full" -> FULL;
            case "smoke" -> SMOKE;
            default -> throw new IllegalArgumentException("--profile: expected full or smoke, got '" + name + "'");
        };
    }
}
