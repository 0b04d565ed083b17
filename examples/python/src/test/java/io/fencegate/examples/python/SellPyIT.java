package io.fencegate.examples.python;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.examples.support.ExampleProcess;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code python3 sell.py} as a user runs it, against {@code fencegate serve} on its embedded default. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SellPyIT {
    private static ExampleProcess gateway;
    private static FencegateClient client;

    @BeforeAll
    static void start() throws Exception {
        gateway = ExampleProcess.gateway();
        client = FencegateClient.builder(gateway.url).build();
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
    }

    private static void stock(String key, int units) {
        Lease lease = client.acquire("main/" + key, Duration.ofSeconds(10), Duration.ofSeconds(10)).orElseThrow();
        client.put("main", key, lease.token(), Integer.toString(units).getBytes(UTF_8));
        client.release(lease.leaseId());
    }

    private static String stockOf(String key) {
        return new String(((ReadOutcome.Value) client.get("main", key)).bytes(), UTF_8);
    }

    @Test
    void sellsOutWithFencedReadModifyWrites() throws Exception {
        stock("stock/py", 3);
        try (ExampleProcess run = ExampleProcess.command("python3", "sell.py", gateway.url, "main", "stock/py", "10")) {
            assertThat(run.awaitExit(60)).as("%s", run.seen).isZero();
            assertThat(run.seen).as("%s", run.seen).contains("done: sold 3")
                    .filteredOn(l -> l.startsWith("sold 1 with token ")).hasSize(3);
        }
        assertThat(stockOf("stock/py")).isEqualTo("0");
        Lease next = client.acquire("main/stock/py", Duration.ofSeconds(5), Duration.ZERO).orElseThrow(); // released
        client.release(next.leaseId());
    }

    @Test
    void twoSellersTogetherSellExactlyTheStock() throws Exception {
        stock("stock/py-race", 12);
        try (ExampleProcess a = ExampleProcess.command("python3", "sell.py", gateway.url, "main", "stock/py-race", "100");
                ExampleProcess b = ExampleProcess.command("python3", "sell.py", gateway.url, "main", "stock/py-race", "100")) {
            assertThat(a.awaitExit(90)).as("%s", a.seen).isZero();
            assertThat(b.awaitExit(90)).as("%s", b.seen).isZero();
            long sold = a.seen.stream().filter(l -> l.startsWith("sold 1 ")).count()
                    + b.seen.stream().filter(l -> l.startsWith("sold 1 ")).count();
            assertThat(sold).isEqualTo(12);
        }
        assertThat(stockOf("stock/py-race")).isEqualTo("0");
    }
}
