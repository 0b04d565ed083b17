package io.fencegate.examples.python;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.examples.support.ExampleProcess;
import io.fencegate.examples.support.StockShelf;
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
    private static StockShelf shelf;
    private static FencegateClient client;

    @BeforeAll
    static void start() throws Exception {
        gateway = ExampleProcess.gateway();
        shelf = new StockShelf(gateway.url);
        client = shelf.client();
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
    }


    @Test
    void sellsOutWithFencedReadModifyWrites() throws Exception {
        shelf.stock("stock/py", 3);
        try (ExampleProcess run = ExampleProcess.command("python3", "sell.py", gateway.url, "main", "stock/py", "10")) {
            assertThat(run.awaitExit(60)).as("%s", run.seen).isZero();
            assertThat(run.seen).as("%s", run.seen).contains("done: sold 3")
                    .filteredOn(l -> l.startsWith("sold 1 with token ")).hasSize(3);
        }
        assertThat(shelf.stockOf("stock/py")).isEqualTo("0");
        Lease next = client.acquire("main/stock/py", Duration.ofSeconds(5), Duration.ZERO).orElseThrow(); // released
        client.release(next.leaseId());
    }

    @Test
    void twoSellersTogetherSellExactlyTheStock() throws Exception {
        shelf.stock("stock/py-race", 12);
        try (ExampleProcess a = ExampleProcess.command("python3", "sell.py", gateway.url, "main", "stock/py-race", "100");
                ExampleProcess b = ExampleProcess.command("python3", "sell.py", gateway.url, "main", "stock/py-race", "100")) {
            assertThat(a.awaitExit(90)).as("%s", a.seen).isZero();
            assertThat(b.awaitExit(90)).as("%s", b.seen).isZero();
            long sold = a.seen.stream().filter(l -> l.startsWith("sold 1 ")).count()
                    + b.seen.stream().filter(l -> l.startsWith("sold 1 ")).count();
            assertThat(sold).isEqualTo(12);
        }
        assertThat(shelf.stockOf("stock/py-race")).isEqualTo("0");
    }
}
