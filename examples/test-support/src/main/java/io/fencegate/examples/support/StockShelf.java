package io.fencegate.examples.support;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import java.time.Duration;

/** The stock items the sell examples work on, in a gateway's store {@code main}, under each item's own lock. */
public final class StockShelf {
    private final FencegateClient client;

    public StockShelf(String gatewayUrl) {
        this.client = FencegateClient.builder(gatewayUrl).build();
    }

    public FencegateClient client() {
        return client;
    }

    /** Puts {@code units} on the shelf under a lease of its own, released at once. */
    public void stock(String key, int units) {
        Lease lease = client.acquire("main/" + key, Duration.ofSeconds(10), Duration.ofSeconds(10)).orElseThrow();
        client.put("main", key, lease.token(), Integer.toString(units).getBytes(UTF_8));
        client.release(lease.leaseId());
    }

    /** A plain read of what is left. */
    public String stockOf(String key) {
        return new String(((ReadOutcome.Value) client.get("main", key)).bytes(), UTF_8);
    }
}
