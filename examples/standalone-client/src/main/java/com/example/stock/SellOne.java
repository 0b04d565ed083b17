package com.example.stock;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.WriteOutcome;
import java.time.Duration;
import java.util.Optional;

/** Sells one widget through a fencegate gateway: java com.example.stock.SellOne http://127.0.0.1:8080 */
public final class SellOne {
    public static void main(String[] args) {
        FencegateClient client = FencegateClient.builder(args.length > 0 ? args[0] : "http://127.0.0.1:8080").build();
        Optional<WriteOutcome> sold = client.withLease("main/stock/widget", Duration.ofSeconds(10), Duration.ofSeconds(5), lease -> {
            ReadOutcome read = client.get("main", "stock/widget", lease.token());   // fenced read
            if (read instanceof ReadOutcome.Value v && Integer.parseInt(new String(v.bytes(), UTF_8)) > 0) {
                return client.put("main", "stock/widget", lease.token(), "0".getBytes(UTF_8));
            }
            return null;
        });
        System.out.println(sold.map(Object::toString).orElse("nothing sold"));
    }
}
