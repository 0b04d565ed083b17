package io.fencegate.gateway.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInfo;

/**
 * The hostile-tenant suite's one scenario, which every abuse vector runs through
 * {@link #assertKeyBUnharmedBy}: on a {@link HostileGateway} (its own JVM, a
 * {@value HostileGateway#HEAP_MB} MiB heap; one per test class, started again if a vector left it
 * dead), key b's {@link SteadyMix} runs quiet, then again while key a runs one {@link AbuseVector}. Key b must see no 5xx and no failed call, and its p99 must stay
 * within {@link #P99_FACTOR}× the quiet p99 (or under {@link #P99_FLOOR}, for a loaded CI machine);
 * the gateway's heap after a full GC must stay under {@link #HEAP_BOUND_BYTES} while the abuse
 * runs; and once the abuse stops, {@code /health} must be UP and both stores must serve key b
 * within {@link #RECOVERY}.
 *
 * <p>A subclass holds the vectors of one kind, one {@code @Test} each, sharing the class's gateway
 * (so a vector uses lock and item names of its own, and stops all it started when closed); {@link #gatewayYaml()} may
 * add configuration sections (the default sets {@code limits.requestTimeout: 5s}, so that a request
 * the gateway cannot serve is answered within the mix's own call timeout).
 */
abstract class HostileTenantTestBase {
    static final Duration WARM_UP = Duration.ofSeconds(2);
    /** Long enough for a p99 of a few hundred calls: the floor below, not the quiet p99, sets the limit on CI's machine. */
    static final Duration QUIET = Duration.ofMillis(1500);
    static final Duration UNDER_ABUSE = Duration.ofSeconds(6);
    static final Duration RECOVERY = Duration.ofSeconds(5);
    static final int P99_FACTOR = 3;
    /** Below this, a p99 passes whatever the quiet one was: a loaded 2-core CI machine is noisy. */
    static final Duration P99_FLOOR = Duration.ofMillis(1500);
    /** Heap in use after a full GC while the abuse runs: half of the gateway's heap. */
    static final long HEAP_BOUND_BYTES = HostileGateway.HEAP_MB / 2 * 1024L * 1024;

    /** One way key a abuses the gateway. */
    @FunctionalInterface
    interface AbuseVector {
        /**
         * Starts the abuse and returns once it is in effect; closing the result stops it (closes its
         * connections, stops its threads).
         */
        AutoCloseable start(Tenant a, HostileGateway gateway) throws Exception;
    }

    /** Extra top-level sections of the gateway's {@code fencegate.yaml}. */
    protected String gatewayYaml() {
        return "limits: { requestTimeout: 5s }";
    }

    /** What a freshly started gateway is given before its first test: key b's mix, to load and compile its paths. */
    @FunctionalInterface
    private interface Warm {
        void up(HostileGateway gateway) throws Exception;
    }

    /** The test class's gateway: started by the first test, again after a test that left it dead. */
    private static HostileGateway shared;

    @AfterAll
    static void stopGateway() throws Exception {
        if (shared != null) {
            shared.close();
            shared = null;
        }
    }

    private HostileGateway gateway(String name, Warm warm) throws Exception {
        if (shared != null && !shared.alive()) {
            shared.close();
            shared = null;
        }
        if (shared == null) {
            shared = HostileGateway.start(name, gatewayYaml());
            warm.up(shared);
        }
        return shared;
    }

    protected final void assertKeyBUnharmedBy(TestInfo test, AbuseVector vector) throws Exception {
        String name = test.getTestMethod().map(m -> m.getName()).orElse("hostile");
        HostileGateway gateway = gateway(name, started -> SteadyMix.run(new Tenant(started.uri, HostileGateway.KEY_B), WARM_UP));
        {
            Tenant a = new Tenant(gateway.uri, HostileGateway.KEY_A);
            Tenant b = new Tenant(gateway.uri, HostileGateway.KEY_B);
            SteadyMix.Result quiet = SteadyMix.run(b, QUIET);
            assertThat(quiet.failures()).as("key b's mix on a quiet gateway: %s", quiet).isEmpty();

            SteadyMix.Result loaded;
            long heapUnderAbuse = -1;
            String heapError = "the gateway is gone";
            try (AutoCloseable abuse = vector.start(a, gateway)) {
                loaded = SteadyMix.run(b, UNDER_ABUSE);
                if (gateway.alive()) {
                    try {
                        heapUnderAbuse = gateway.heapAfterGcBytes(b.http);
                    } catch (Exception | AssertionError e) {
                        heapError = e.toString();
                    }
                }
            }
            String report = "quiet: " + quiet + "\nunder abuse: " + loaded + "\nheap after GC under abuse: "
                    + (heapUnderAbuse >= 0 ? (heapUnderAbuse >> 20) + " MiB" : "not measured: " + heapError)
                    + "\ngateway output:\n" + gateway.process.child().tail();
            System.out.println("[" + name + "] " + report.replace("\ngateway output:", "").split("\n", 4)[0]
                    + " | " + loaded + " | heap " + (heapUnderAbuse >> 20) + " MiB");

            assertThat(gateway.alive()).as("the gateway is still running\n%s", report).isTrue();
            assertThat(loaded.fiveXx()).as("key b's 5xx under abuse\n%s", report).isZero();
            assertThat(loaded.failures()).as("key b's failed calls under abuse\n%s", report).isEmpty();
            long allowed = Math.max(P99_FACTOR * quiet.p99Millis(), P99_FLOOR.toMillis());
            assertThat(loaded.p99Millis()).as("key b's p99 (ms) under abuse, allowed %d\n%s", allowed, report)
                    .isLessThanOrEqualTo(allowed);
            assertThat(heapUnderAbuse).as("heap after GC under abuse (bytes)\n%s", report)
                    .isBetween(0L, HEAP_BOUND_BYTES);
            assertRecovers(b, report);
        }
    }

    /** Within {@link #RECOVERY} of the abuse's end: {@code /health} UP, and key b writes and reads both stores. */
    private static void assertRecovers(Tenant b, String report) throws InterruptedException {
        long deadline = System.nanoTime() + RECOVERY.toNanos();
        String last = "nothing tried";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<byte[]> health = b.send(HttpRequest.newBuilder(b.base.resolve("/health"))
                        .timeout(Duration.ofSeconds(2)).build());
                if (health.statusCode() != 200) {
                    last = "/health " + health.statusCode() + " " + new String(health.body());
                } else {
                    SteadyMix.Result once = SteadyMix.once(b);
                    if (once.failures().isEmpty()) {
                        return;
                    }
                    last = once.toString();
                }
            } catch (Exception e) {
                last = e.toString();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("not recovered " + RECOVERY.toSeconds() + " s after the abuse stopped: " + last
                + "\n" + report);
    }
}
