package io.fencegate.store.jdbc;

import static io.fencegate.store.jdbc.LibraryShapesIT.FENCE;
import static io.fencegate.store.jdbc.LibraryShapesIT.QTY;
import static io.fencegate.store.jdbc.LibraryShapesIT.SKU;
import static io.fencegate.store.jdbc.LibraryShapesIT.STOCK;
import static io.fencegate.store.jdbc.LibraryShapesIT.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.store.GuardRule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MariaDB evaluates {@code ON DUPLICATE KEY UPDATE} assignments left to right, each seeing the
 * columns assigned before it. {@link TokenColumnGuard#upsertAssignments} must compare the token
 * before setting it; this test proves it does, and that its check catches the wrong order.
 */
@Timeout(60)
class OnDuplicateKeyUpdateOrderIT {

    private TestDatabase db;
    private HikariDataSource pool;
    private DSLContext dsl;
    private final TokenColumnGuard guard = TokenColumnGuard.of(TOKEN, FENCE, GuardRule.STRICT);

    @BeforeEach
    void setUp() throws Exception {
        db = TestDatabase.create(TestDatabase.Kind.MARIADB);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.username());
        pool = new HikariDataSource(config);
        dsl = DSL.using(pool, SQLDialect.MARIADB);
        dsl.execute("CREATE TABLE stock (sku VARCHAR(64) NOT NULL PRIMARY KEY, qty BIGINT NOT NULL,"
                + " token BIGINT NOT NULL, fence BIGINT NOT NULL)");
    }

    @AfterEach
    void tearDown() throws Exception {
        pool.close();
        db.close();
    }

    private void upsert(String sku, long qty, long t, Map<Field<?>, Field<?>> assignments) {
        dsl.insertInto(STOCK).set(SKU, sku).set(QTY, qty).set(TOKEN, t).set(FENCE, t)
                .onDuplicateKeyUpdate().set(assignments)
                .execute();
    }

    private Object[] row(String sku) {
        return dsl.select(QTY, TOKEN, FENCE).from(STOCK).where(SKU.eq(sku)).fetchOne().intoArray();
    }

    /** Value and token switch together: admitted upserts set both, refused ones neither. */
    private void assertValueAndTokenSwitchTogether(String sku, java.util.function.BiFunction<Long, Long, Map<Field<?>, Field<?>>> order) {
        upsert(sku, 1, 4, order.apply(4L, 1L));                 // first write inserts
        assertThat(row(sku)).containsExactly(1L, 4L, 4L);
        upsert(sku, 0, 5, order.apply(5L, 0L));                 // admitted
        assertThat(row(sku)).as("admitted upsert").containsExactly(0L, 5L, 5L);
        upsert(sku, 99, 3, order.apply(3L, 99L));               // lower token: refused
        assertThat(row(sku)).as("stale upsert").containsExactly(0L, 5L, 5L);
        upsert(sku, 42, 5, order.apply(5L, 42L));               // strict: same token refused
        assertThat(row(sku)).as("retried upsert").containsExactly(0L, 5L, 5L);
        upsert(sku, 7, 6, order.apply(6L, 7L));
        assertThat(row(sku)).as("second admitted upsert").containsExactly(7L, 6L, 6L);
    }

    @Test
    void guardedUpsertComparesTheTokenBeforeSettingIt() {
        assertValueAndTokenSwitchTogether("right", (t, qty) -> guard.upsertAssignments(t, Map.of(QTY, qty)));
        List<Field<?>> columns = new ArrayList<>(guard.upsertAssignments(1, Map.of(QTY, 1L)).keySet());
        assertThat(columns).as("values, then fence, token last").containsExactly(QTY, FENCE, TOKEN);
    }

    @Test
    void theSameCheckCatchesTokenFirstOrder() {
        // The assignments reversed: the token is set first, so the value's guard sees the new token.
        java.util.function.BiFunction<Long, Long, Map<Field<?>, Field<?>>> tokenFirst = (t, qty) -> {
            List<Map.Entry<Field<?>, Field<?>>> entries = new ArrayList<>(guard.upsertAssignments(t, Map.of(QTY, qty)).entrySet());
            Collections.reverse(entries);
            Map<Field<?>, Field<?>> reversed = new LinkedHashMap<>();
            entries.forEach(e -> reversed.put(e.getKey(), e.getValue()));
            return reversed;
        };
        assertThatThrownBy(() -> assertValueAndTokenSwitchTogether("wrong", tokenFirst))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("admitted upsert");
        // What it left behind: the new token with the old value (and the old fence, now below the
        // token): the bug the order prevents.
        assertThat(row("wrong")).containsExactly(1L, 5L, 4L);
    }

}
