package io.fencegate.examples.tokencolumn;

import static io.fencegate.examples.jdbc.StockTable.QTY;
import static io.fencegate.examples.jdbc.StockTable.SKU;
import static io.fencegate.examples.jdbc.StockTable.STOCK;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import io.fencegate.examples.jdbc.JdbcExample;
import io.fencegate.examples.jdbc.StockTable;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.store.GuardRule;
import io.fencegate.store.jdbc.TokenColumnGuard;
import java.time.Duration;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.impl.SQLDataType;

/**
 * Your own table, your own jOOQ, no gateway: the {@code stock} table gains a {@code fencing_token}
 * column (the token of its last applied write) and a {@code fence} column (the highest token that
 * has read it fenced), and {@link TokenColumnGuard} adds the guard to your statements.
 *
 * <p>Two holders of one lock, in one process for brevity: A reads the stock, stalls past its ttl
 * (as a GC pause would), B takes the lock, reads and sells; A wakes and sells from what it read.
 * A's UPDATE matches no row, so B's sale stands.
 *
 * <pre>
 * java io.fencegate.examples.tokencolumn.TokenColumnExample jdbc:postgresql://127.0.0.1:5432/test postgres 127.0.0.1:2181
 * </pre>
 */
public final class TokenColumnExample {
    // What fencing adds to the application's own stock table (StockTable): two columns.
    static final Field<Long> FENCING_TOKEN = field(name("fencing_token"), SQLDataType.BIGINT);
    static final Field<Long> FENCE = field(name("fence"), SQLDataType.BIGINT);

    private static final Duration TTL = Duration.ofSeconds(1);
    private static final TokenColumnGuard GUARD = TokenColumnGuard.of(FENCING_TOKEN, FENCE, GuardRule.STRICT);

    public static void main(String[] args) throws Exception {
        JdbcExample.run("TokenColumnExample", args, (pool, dsl, issuer) -> {
            createTable(dsl);
            return run(dsl, issuer);
        });
    }

    static void createTable(DSLContext dsl) {
        StockTable.create(dsl);
        // What fencing adds to the table: two columns, 0 for rows no lease has touched yet.
        dsl.alterTable(STOCK).addColumnIfNotExists(FENCING_TOKEN, SQLDataType.BIGINT.notNull().defaultValue(0L)).execute();
        dsl.alterTable(STOCK).addColumnIfNotExists(FENCE, SQLDataType.BIGINT.notNull().defaultValue(0L)).execute();
        dsl.insertInto(STOCK).set(SKU, "sku-42").set(QTY, 5).onConflictDoNothing().execute();
    }

    private static boolean run(DSLContext dsl, LeaseIssuer issuer) throws InterruptedException {
        String lock = "stock/sku-42";
        Lease a = issuer.acquire(lock, TTL, Duration.ofSeconds(5)).toCompletableFuture().join().orElseThrow();
        int seenByA = fencedRead(dsl, a.token());
        System.out.println("A (token " + a.token() + ") reads qty " + seenByA + ", then stalls past its ttl");
        Thread.sleep(TTL.toMillis() * 3 / 2);

        Lease b = issuer.acquire(lock, TTL, Duration.ofSeconds(5)).toCompletableFuture().join().orElseThrow();
        int seenByB = fencedRead(dsl, b.token());
        int soldByB = sell(dsl, b.token(), seenByB);
        System.out.println("B (token " + b.token() + ") reads qty " + seenByB + ", sells one: " + soldByB + " row updated");
        issuer.release(b.leaseId()).toCompletableFuture().join();

        int soldByA = sell(dsl, a.token(), seenByA);
        System.out.println("A wakes and sells from qty " + seenByA + ": " + soldByA + " row updated"
                + (soldByA == 0 ? " (refused: B's token fenced it out)" : ""));

        Record row = dsl.select(QTY, FENCING_TOKEN).from(STOCK).where(SKU.eq("sku-42")).fetchOne();
        System.out.println("stock: qty " + row.get(QTY) + ", fencing_token " + row.get(FENCING_TOKEN));
        return soldByA == 0 && soldByB == 1 && row.get(QTY) == seenByB - 1 && row.get(FENCING_TOKEN) == b.token();
    }

    /** Claims the row for {@code token} (raises its fence), then reads it: no lower token can write it now. */
    private static int fencedRead(DSLContext dsl, long token) {
        if (!GUARD.claim(dsl, STOCK, SKU.eq("sku-42"), token)) {
            throw new IllegalStateException("a newer holder has claimed sku-42: stop");
        }
        return dsl.select(QTY).from(STOCK).where(SKU.eq("sku-42")).fetchOne(QTY);
    }

    /** The guarded UPDATE: 1 if applied, 0 if a newer token has claimed or written the row. */
    private static int sell(DSLContext dsl, long token, int seen) {
        return dsl.update(STOCK)
                .set(QTY, seen - 1)
                .set(GUARD.advanceTo(token))
                .where(SKU.eq("sku-42"))
                .and(GUARD.admits(token))
                .execute();
    }

    private TokenColumnExample() {}
}
