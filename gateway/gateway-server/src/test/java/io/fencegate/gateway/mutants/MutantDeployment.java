package io.fencegate.gateway.mutants;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fencegate.check.CheckCommand;
import io.fencegate.gateway.Gateway;
import io.fencegate.gateway.GatewayOptions;
import io.fencegate.gateway.StoreBinding;
import io.fencegate.gateway.config.Backends;
import io.fencegate.gateway.config.ConfigLoader;
import io.fencegate.gateway.metrics.GatewayMetrics;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.store.GuardedStore;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

/**
 * Real backends opened from a gateway config (an issuer and the store {@code main}), and gateways
 * in this JVM in front of them whose issuer and store are wrapped: by the identity decorators for
 * the control, by a mutant for the run that must fail. {@link #check} runs {@code fencegate check}
 * against one such gateway.
 */
final class MutantDeployment implements AutoCloseable {
    /**
     * One bounded checker run: a short, contended workload whose clients often pause past their ttl
     * (the stale holders every mutant needs to show itself) and think long enough between read and
     * write for a stale holder to wake up in between.
     */
    static final List<String> WORKLOAD_OPTIONS = List.of("--clients", "8", "--keys", "2",
            "--ttl-ms", "300", "--think-ms", "100", "--pause-chance", "0.3");
    /** The control only has to show the setup is sound; a mutant's run is longer, so a rare anomaly surely shows. */
    static final int CONTROL_SECONDS = 3;
    static final int MUTANT_SECONDS = 6;

    /** What wraps the real issuer and store for one gateway. */
    record Wrapping(UnaryOperator<LeaseIssuer> issuer, UnaryOperator<GuardedStore> store) {
        static final Wrapping CONTROL = new Wrapping(ForwardingLeaseIssuer::new, ForwardingGuardedStore::new);

        static Wrapping issuer(UnaryOperator<LeaseIssuer> mutant) {
            return new Wrapping(mutant, ForwardingGuardedStore::new);
        }

        static Wrapping store(UnaryOperator<GuardedStore> mutant) {
            return new Wrapping(ForwardingLeaseIssuer::new, mutant);
        }
    }

    /** A checker run's exit code, its summary.json and how long it took (gateway start and stop included). */
    record Run(int exit, JsonNode summary, long millis) {
        List<String> violationKinds() {
            List<String> kinds = new ArrayList<>();
            summary.path("violations").forEach(v -> kinds.add(v.path("kind").asText()));
            return kinds;
        }

        @Override
        public String toString() {
            return "exit " + exit + " after " + millis + " ms, " + summary.path("verdict").asText() + ", violations " + violationKinds()
                    + ", ops " + summary.path("ops") + " (ok " + summary.path("ok") + ", fail " + summary.path("fail")
                    + ", unknown " + summary.path("unknown") + ")";
        }
    }

    private static final AtomicBoolean JVM_WARMED = new AtomicBoolean();

    private final Vertx vertx = Vertx.vertx();
    private final Backends backends;

    private MutantDeployment(String yaml) throws Exception {
        try {
            this.backends = Backends.open(ConfigLoader.parse(yaml, Map.of()), vertx);
        } catch (Exception e) {
            vertx.close().await(10, TimeUnit.SECONDS);
            throw e;
        }
    }

    /**
     * Opens the backends and takes one lease and one write through them before any run: a cold
     * issuer on a loaded machine can take seconds for its first grant (ZooKeeper creates its root
     * nodes), which would fail a run's first acquires by their short wait and prove nothing.
     */
    static MutantDeployment open(String yaml) throws Exception {
        long t0 = System.nanoTime();
        MutantDeployment deployment = new MutantDeployment(yaml);
        try {
            long opened = System.nanoTime();
            deployment.warmUp();
            System.out.printf("backends opened in %d ms, warmed up in %d ms%n", (opened - t0) / 1_000_000,
                    (System.nanoTime() - opened) / 1_000_000);
            return deployment;
        } catch (Exception e) {
            deployment.close();
            throw e;
        }
    }

    private void warmUp() throws Exception {
        Lease lease = backends.issuer().acquire("main/mutants-warm-up", Duration.ofSeconds(30), Duration.ofSeconds(30))
                .toCompletableFuture().get(60, TimeUnit.SECONDS).orElseThrow();
        GuardedStore main = backends.stores().stream().filter(s -> s.name().equals("main")).findFirst().orElseThrow().store();
        main.write("mutants-warm-up", lease.token(), new byte[] {1}).toCompletableFuture().get(60, TimeUnit.SECONDS);
        main.fencedRead("mutants-warm-up", lease.token()).toCompletableFuture().get(60, TimeUnit.SECONDS);
        backends.issuer().release(lease.leaseId()).toCompletableFuture().get(60, TimeUnit.SECONDS);
        if (JVM_WARMED.compareAndSet(false, true)) {
            // The first run in a JVM loads and compiles the checker, its HTTP client and the gateway's
            // routes while it runs: its clients got a few grants in seconds. One unjudged second first.
            check(Wrapping.CONTROL, "counter", 1, Path.of("target", "mutants", "warm-up"));
        }
    }

    /** Serves the wrapped backends on a free loopback port for one checker run, then stops. */
    Run check(Wrapping wrapping, String workload, Path out) throws Exception {
        return check(wrapping, workload, wrapping == Wrapping.CONTROL ? CONTROL_SECONDS : MUTANT_SECONDS, out);
    }

    private Run check(Wrapping wrapping, String workload, int seconds, Path out) throws Exception {
        long t0 = System.nanoTime();
        StoreBinding main = backends.stores().stream().filter(s -> s.name().equals("main")).findFirst().orElseThrow();
        GuardedStore store = wrapping.store().apply(main.store());
        LeaseIssuer issuer = wrapping.issuer().apply(backends.issuer());
        int exit;
        try {
            Gateway gateway = Gateway.start(vertx, new GatewayOptions().port(0).eventLoops(2), issuer,
                    List.of(new StoreBinding("main", store, null, Map.of(), main.lock())), GatewayMetrics.noop())
                    .await(30, TimeUnit.SECONDS);
            try {
                List<String> args = new ArrayList<>(List.of("--url", "http://127.0.0.1:" + gateway.port(),
                        "--workload", workload, "--store", "main", "--out", out.toString(),
                        "--seconds", Integer.toString(seconds)));
                args.addAll(WORKLOAD_OPTIONS);
                exit = CheckCommand.execute(args.toArray(String[]::new));
            } finally {
                gateway.close().await(30, TimeUnit.SECONDS);
            }
        } finally {
            store.close();
            issuer.close();
        }
        return new Run(exit, summary(out), (System.nanoTime() - t0) / 1_000_000);
    }

    private static JsonNode summary(Path out) throws IOException {
        Path file = out.resolve("summary.json");
        return Files.exists(file) ? new ObjectMapper().readTree(file.toFile()) : new ObjectMapper().createObjectNode();
    }

    @Override
    public void close() throws Exception {
        try {
            backends.close();
        } finally {
            vertx.close().await(20, TimeUnit.SECONDS);
        }
    }
}
