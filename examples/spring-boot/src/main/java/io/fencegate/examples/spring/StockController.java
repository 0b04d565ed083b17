package io.fencegate.examples.spring;

import static io.fencegate.examples.jdbc.StockTable.QTY;
import static io.fencegate.examples.jdbc.StockTable.SKU;
import static io.fencegate.examples.jdbc.StockTable.STOCK;
import static io.fencegate.examples.spring.ShopTables.ORDERS;
import static io.fencegate.examples.spring.ShopTables.TOKEN;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.store.Executed;
import io.fencegate.store.StatementResult;
import io.fencegate.store.jdbc.GuardRowTransactions;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.jooq.DSLContext;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Sells stock. Every change takes the lease for {@code stock/{sku}} and runs in one guard-row
 * transaction with the lease's token: a request whose lease was overtaken (a long GC pause in
 * this JVM, a slow database) is refused before any statement runs, so a unit is never sold twice.
 */
@RestController
public class StockController {
    private final LeaseIssuer issuer;
    private final GuardRowTransactions guarded;
    private final DSLContext dsl;
    private final Duration ttl;
    private final Duration wait;

    public StockController(LeaseIssuer issuer, GuardRowTransactions guarded, DSLContext dsl,
            @Value("${shop.lease.ttl}") Duration ttl, @Value("${shop.lease.wait}") Duration wait) {
        this.issuer = issuer;
        this.guarded = guarded;
        this.dsl = dsl;
        this.ttl = ttl;
        this.wait = wait;
    }

    /** Sets the stock of {@code sku} to {@code units}. */
    @PutMapping("/stock/{sku}")
    public ResponseEntity<Map<String, Object>> restock(@PathVariable("sku") String sku, @RequestParam("units") int units) {
        if (units < 0) {
            return ResponseEntity.badRequest().body(Map.of("error", "units must be 0 or more, was " + units));
        }
        return underLease(sku, (token) -> guarded.run("stock/" + sku, token, tx ->
                tx.insertInto(STOCK).set(SKU, sku).set(QTY, units)
                        .onConflict(SKU).doUpdate().set(QTY, units).execute()),
                rows -> ResponseEntity.ok(Map.of("sku", sku, "qty", units)));
    }

    /** Sells one unit: 201 with the order's token, 409 sold out (or stale), 503 if the lock stayed busy. */
    @PostMapping("/stock/{sku}/sell")
    public ResponseEntity<Map<String, Object>> sell(@PathVariable("sku") String sku) {
        return underLease(sku, token -> guarded.run("stock/" + sku, token, tx -> {
            Integer qty = tx.select(QTY).from(STOCK).where(SKU.eq(sku)).fetchOne(QTY);
            if (qty == null || qty == 0) {
                return 0;
            }
            return tx.update(STOCK).set(QTY, qty - 1).where(SKU.eq(sku)).execute()
                    + tx.insertInto(ORDERS).set(SKU, sku).set(TOKEN, token).execute();
        }), rows -> rows == 0
                ? ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("sold", false, "reason", "sold out"))
                : ResponseEntity.status(HttpStatus.CREATED).body(Map.of("sold", true)));
    }

    @GetMapping("/stock/{sku}")
    public Map<String, Object> stock(@PathVariable("sku") String sku) {
        Integer qty = dsl.select(QTY).from(STOCK).where(SKU.eq(sku)).fetchOne(QTY);
        int orders = dsl.fetchCount(ORDERS, SKU.eq(sku));
        return Map.of("sku", sku, "qty", qty == null ? 0 : qty, "orders", orders);
    }

    private interface GuardedCall {
        StatementResult run(long token);
    }

    private interface Answer {
        ResponseEntity<Map<String, Object>> of(long rows);
    }

    /** Takes the lease (the lock guarding the sku), runs the call with its token, always releases. */
    private ResponseEntity<Map<String, Object>> underLease(String sku, GuardedCall call, Answer answer) {
        Optional<Lease> lease = issuer.acquire("stock/" + sku, ttl, wait).toCompletableFuture().join();
        if (lease.isEmpty()) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(Map.of("error", "stock/" + sku + " stayed locked"));
        }
        try {
            StatementResult result = call.run(lease.get().token());
            if (result instanceof Executed executed) {
                return answer.of(executed.rows());
            }
            return ResponseEntity.status(HttpStatus.CONFLICT)
                    .body(Map.of("sold", false, "reason", "stale: a newer lease holder got there first"));
        } finally {
            issuer.release(lease.get().leaseId()).toCompletableFuture().join();
        }
    }
}
