package io.fencegate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fencegate.testing.ChildProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * A contender whose load runs in a child process of another language (bench/clients/*): one run per
 * measurement, given the concurrency, warm-up and measured seconds as its last three arguments but
 * one (then the key count), printing {@code {"ops","seconds","latenciesMicros":[…]}} as its last line.
 * The child starts before its warm-up, so interpreter start-up and imports are never measured; and
 * as every measurement is a fresh process, whose JIT (Node's) starts cold, its warm-up is at least
 * {@link #MIN_WARM_UP}, whatever the profile's (a contender in the bench's own JVM stays warm).
 */
final class ScriptContender extends NamedContender {
    static final Duration MIN_WARM_UP = Duration.ofSeconds(3);
    private static final ObjectMapper JSON = new ObjectMapper();
    private final List<String> command;
    private final Map<String, String> env;
    private final int keys;

    ScriptContender(String name, List<String> command, Map<String, String> env, int keys) {
        super(name);
        this.command = List.copyOf(command);
        this.env = Map.copyOf(env);
        this.keys = keys;
    }

    @Override
    public Sample measure(int concurrency, Duration warmUp, Duration measure) throws Exception {
        Duration warm = warmUp.compareTo(MIN_WARM_UP) < 0 ? MIN_WARM_UP : warmUp;
        List<String> run = new ArrayList<>(command);
        run.addAll(List.of(Integer.toString(concurrency), seconds(warm), seconds(measure), Integer.toString(keys)));
        String out;
        try (ChildProcess child = ChildProcess.command(name(), run).env(env).start()) {
            int exit = child.await(warm.plus(measure).toSeconds() + 120);
            out = child.output();
            if (exit != 0) {
                throw new IllegalStateException(name() + " exited with " + exit + ":\n" + out);
            }
        }
        String last = out.strip().lines().reduce((a, b) -> b).orElse("");
        JsonNode result = JSON.readTree(last);
        Histogram latencies = Sample.newHistogram();
        for (JsonNode micros : result.path("latenciesMicros")) {
            latencies.recordValue(Math.max(1, micros.asLong()));
        }
        return new Sample(result.path("ops").asLong(), result.path("seconds").asDouble(), latencies, null);
    }

    private static String seconds(Duration d) {
        return Double.toString(d.toMillis() / 1000.0);
    }
}
