package io.fencegate.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.Applied;
import io.fencegate.store.Executed;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import io.fencegate.store.StatementResult;
import io.fencegate.store.WriteResult;
import java.nio.charset.StandardCharsets;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README snippets for the JDBC store, run as written against the real Postgres (own schema). */
@Timeout(60)
class JdbcReadmeExampleIT {

    @Test
    void readmeSnippetsRun() throws Exception {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
            String url = db.url();
            long token = 42;   // in real code: lease.token() from a LeaseIssuer
            StringBuilder log = new StringBuilder();

            // --- snippet 1: a guarded key-value store with its own pool ---
            try (JdbcGuardedStore store = JdbcGuardedStore.open(new JdbcStoreOptions()
                    .jdbcUrl(url).username("postgres").password("")      // applies fencegate's migrations
                    .rule(GuardRule.STRICT))) {
                ReadResult read = store.fencedRead("inventory/sku-42", token).toCompletableFuture().join();
                int stock = read instanceof Found found ? Integer.parseInt(new String(found.value(), StandardCharsets.UTF_8)) : 10;
                WriteResult written = store.write("inventory/sku-42", token,
                        String.valueOf(stock - 1).getBytes(StandardCharsets.UTF_8)).toCompletableFuture().join();
                if (written instanceof Stale stale && !stale.alreadyApplied()) {
                    log.append("fenced out by token ").append(stale.fence());  // a newer holder exists: stop
                }
                // --- end of snippet 1 ---
                assertThat(written).isEqualTo(new Applied(0));
                assertThat(store.write("inventory/sku-42", token - 1, new byte[0]).toCompletableFuture().join())
                        .isInstanceOf(Stale.class);
            }

            // --- snippet 2: your own HikariCP pool and jOOQ ---
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url);
            config.setUsername("postgres");
            try (HikariDataSource pool = new HikariDataSource(config)) {
                FencegateSchema.migrate(pool);                                  // fencegate_item, fencegate_fence
                DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
                dsl.execute("CREATE TABLE stock (sku VARCHAR(64) PRIMARY KEY, qty BIGINT, token BIGINT, fence BIGINT)");
                dsl.execute("CREATE TABLE sales (sku VARCHAR(64))");
                dsl.execute("INSERT INTO stock VALUES ('sku-42', 1, 0, 0)");
                Table<?> stockTable = DSL.table("stock");
                Table<?> sales = DSL.table("sales");
                Field<String> sku = DSL.field("sku", SQLDataType.VARCHAR);
                Field<Long> qty = DSL.field("qty", SQLDataType.BIGINT);
                Field<Long> tokenColumn = DSL.field("token", SQLDataType.BIGINT);
                Field<Long> fenceColumn = DSL.field("fence", SQLDataType.BIGINT);

                // (a) a guard row around any number of your statements: all or nothing, and a
                //     fenced read-modify-write by construction (reads happen under the row lock)
                StatementResult sold = GuardRowTransactions.of(dsl, GuardRule.STRICT)
                        .run("inventory/sku-42", token, tx -> {
                            long left = tx.select(qty).from(stockTable).where(sku.eq("sku-42")).fetchOne(qty);
                            if (left == 0) {
                                return 0;
                            }
                            return tx.update(stockTable).set(qty, left - 1).where(sku.eq("sku-42")).execute()
                                    + tx.insertInto(sales).set(sku, "sku-42").execute();
                        });
                // sold: Executed(previousToken, rows) or Stale(currentToken, fence, token) -> nothing ran

                // (b) a token column on your own table: claim (fenced read), then a guarded UPDATE
                TokenColumnGuard guard = TokenColumnGuard.of(tokenColumn, fenceColumn, GuardRule.STRICT);
                long next = token + 1;
                if (guard.claim(dsl, stockTable, sku.eq("sku-42"), next)) {
                    int rows = dsl.update(stockTable)
                            .set(qty, 5L)
                            .set(guard.advanceTo(next))                    // token = fence = next
                            .where(sku.eq("sku-42"))
                            .and(guard.admits(next))                       // fence <= next and token < next
                            .execute();                                    // 1 applied, 0 stale
                    log.append(" restocked=").append(rows);
                }
                // --- end of snippet 2 ---
                assertThat(sold).isEqualTo(new Executed(0, 2));
                assertThat(log.toString()).isEqualTo(" restocked=1");
                assertThat(dsl.select(qty, tokenColumn, fenceColumn).from(stockTable).fetchOne().intoArray())
                        .containsExactly(5L, 43L, 43L);
            }
        }
    }
}
