package io.fencegate.examples.client;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.LeaseKeepAlive;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.Stale;
import io.fencegate.client.WriteOutcome;
import java.time.Duration;
import java.util.Optional;

/**
 * Sells units of one item through the gateway, one per lease, each under a kept-alive lease
 * ({@link FencegateClient#withLease}): a fenced read of the stock, a slow "payment", then a guarded
 * write of the stock minus one. It stops cleanly, without writing, as soon as its lease is lost
 * (paused past its ttl, the gateway unreachable), and when a newer holder has claimed the item.
 *
 * <pre>
 * java io.fencegate.examples.client.SellStock http://127.0.0.1:8080 main stock/widget [units] [paymentMs] [ttlMs]
 * </pre>
 */
public final class SellStock {

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: SellStock <gateway-url> <store> <key> [units=1000] [paymentMs=200] [ttlMs=2000]");
            System.exit(2);
        }
        String store = args[1];
        String key = args[2];
        int units = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
        long paymentMs = args.length > 4 ? Long.parseLong(args[4]) : 200;
        Duration ttl = Duration.ofMillis(args.length > 5 ? Long.parseLong(args[5]) : 2000);
        FencegateClient client = FencegateClient.builder(args[0]).timeout(Duration.ofSeconds(5)).build();

        // One lease per sale: a strict store takes one write per token. The lock guarding an item is
        // {store}/{key}; withLease renews the lease at ttl/3 and releases it however the sale ends.
        int sold = 0;
        while (sold < units) {
            Optional<Sale> sale = client.withLease(store + "/" + key, ttl, Duration.ofSeconds(10), lease -> {
                lease.lost().thenAccept(reason ->
                        System.out.println("lease lost: " + reason + " at " + System.currentTimeMillis()));
                return sellOne(client, lease, store, key, paymentMs);
            });
            if (sale.isEmpty()) {
                System.out.println("stopping: the lock stayed busy");
                break;
            }
            if (sale.get() != Sale.SOLD) {
                System.out.println("stopping: " + sale.get().why);
                break;
            }
            sold++;
        }
        System.out.println("done: sold " + sold);
    }

    /** How one sale ended. */
    enum Sale {
        SOLD("sold"),
        SOLD_OUT("sold out"),
        LEASE_LOST("the lease is gone, nothing written"),
        REFUSED("a newer holder has claimed the item, nothing written");

        final String why;

        Sale(String why) {
            this.why = why;
        }
    }

    private static Sale sellOne(FencegateClient client, LeaseKeepAlive lease, String store, String key, long paymentMs)
            throws InterruptedException {
        // Fenced read: claims the item for our token, so an older holder can no longer write it.
        ReadOutcome read = client.get(store, key, lease.token());
        if (read instanceof Stale) {
            return Sale.REFUSED;
        }
        int stock = read instanceof ReadOutcome.Value v ? Integer.parseInt(new String(v.bytes(), UTF_8)) : 0;
        if (stock == 0) {
            return Sale.SOLD_OUT;
        }
        System.out.println("paying, token " + lease.token() + ", stock " + stock);
        Thread.sleep(paymentMs); // the payment: the window a pause (GC, SIGSTOP) falls into
        if (!lease.held()) {
            return Sale.LEASE_LOST; // stop before writing: a newer holder may be selling by now
        }
        WriteOutcome written = client.put(store, key, lease.token(), Integer.toString(stock - 1).getBytes(UTF_8));
        if (written instanceof Stale) {
            return Sale.REFUSED; // we were too slow after all: the guard kept the newer holder's sale
        }
        System.out.println("sold 1 with token " + lease.token() + ", stock now " + (stock - 1));
        return Sale.SOLD;
    }

    private SellStock() {}
}
