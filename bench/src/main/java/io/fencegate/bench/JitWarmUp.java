package io.fencegate.bench;

import io.vertx.ext.web.client.WebClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Loads a freshly launched gateway until its JIT has settled, so the contenders measure the
 * server users run for days, not its first minute. pgbench is native and has no such phase.
 * The gateway reports its JIT time ({@code jvm_compilation_time_ms_total} on {@code /metrics});
 * a round in which it grew by less than {@link #SETTLED} of the round's length counts as settled,
 * and two such rounds in a row end the warm-up (one alone may fall between two bursts of C2
 * compilation). Bounded by {@code max}: a machine too loaded to settle still gets measured.
 */
final class JitWarmUp {
    /** JIT time a round may add and still count as settled: 2% of one core. */
    static final double SETTLED = 0.02;

    private JitWarmUp() {}

    /**
     * Runs each of {@code loads} for {@code round} at each of {@code concurrencies}, round after
     * round, until settled or {@code max} has passed; prints what it took.
     */
    static void run(WebClient web, int port, List<Contender> loads, List<Integer> concurrencies, Duration round,
            Duration max) throws Exception {
        long start = System.nanoTime();
        double before = compilationMillis(web, port);
        double first = before;
        int settledRounds = 0;
        StringBuilder perRound = new StringBuilder();
        while (settledRounds < 2 && System.nanoTime() - start < max.toNanos()) {
            long roundStart = System.nanoTime();
            for (int c : concurrencies) {
                for (Contender load : loads) {
                    load.measure(c, Duration.ZERO, round);
                }
            }
            double after = compilationMillis(web, port);
            double roundMillis = (System.nanoTime() - roundStart) / 1e6;
            settledRounds = after - before < SETTLED * roundMillis ? settledRounds + 1 : 0;
            perRound.append(perRound.isEmpty() ? "" : ", ").append(Math.round(after - before));
            before = after;
        }
        System.err.printf("bench: gateway warm-up %.0f s, JIT %.0f ms meanwhile (a round: %s), %.0f ms since start%s%n",
                (System.nanoTime() - start) / 1e9, before - first, perRound, before,
                settledRounds < 2 ? ", still compiling when the warm-up's time was up" : "");
    }

    /** The gateway's {@code jvm_compilation_time_ms_total}, summed over its compilers. */
    static double compilationMillis(WebClient web, int port) throws Exception {
        String body = web.get(port, "127.0.0.1", "/metrics").send()
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).bodyAsString();
        double total = 0;
        boolean found = false;
        for (String line : body.split("\n")) {
            if (line.startsWith("jvm_compilation_time_ms_total")) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                found = true;
            }
        }
        if (!found) {
            throw new IllegalStateException("the gateway's /metrics has no jvm_compilation_time_ms_total");
        }
        return total;
    }
}
