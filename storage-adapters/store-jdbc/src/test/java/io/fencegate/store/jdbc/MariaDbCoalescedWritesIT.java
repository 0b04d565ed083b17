package io.fencegate.store.jdbc;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Stale;
import io.fencegate.store.WriteResult;
import io.fencegate.store.backend.WriteCoalescer;
import io.fencegate.store.testkit.AbstractCoalescedWritesTest;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * On MySQL/MariaDB the JDBC store coalesces the writes in flight into one transaction a thread
 * ({@link MySqlBatchWrites}): the kit's suite (one serial history, never one key twice in a
 * batch), and here one batch mixing first writes, updates and stale writes. Real MariaDB, a
 * database of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbCoalescedWritesIT extends AbstractCoalescedWritesTest {
    private TestDatabase db;

    @BeforeAll
    void createDatabase() throws Exception {
        db = TestDatabase.create(TestDatabase.Kind.MARIADB);
    }

    @AfterAll
    void dropDatabase() throws Exception {
        db.close();
    }

    @Override
    protected GuardedStore coalescingStore(int connections) {
        return JdbcGuardedStore.open(db.options().rule(GuardRule.STRICT).poolSize(connections));
    }

    @Override
    protected WriteCoalescer writesOf(GuardedStore store) {
        return ((JdbcGuardedStore) store).writes();
    }

    /**
     * A batch mixing a first write, an applied update and a stale write is judged row by row
     * under its locks (MariaDB's found-rows count cannot tell them apart).
     */
    @Test
    void oneBatchAnswersFirstWritesUpdatesAndStaleWritesEachItsOwn() throws Exception {
        try (JdbcGuardedStore store = JdbcGuardedStore.open(db.options().rule(GuardRule.STRICT).poolSize(1));
                Connection holder = db.connect()) {
            List<List<String>> batches = recordBatches(store);
            String p = prefix();
            await(store.write(p + "held", 1, bytes("v1")));
            await(store.write(p + "newer", 9, bytes("nine")));
            await(store.write(p + "older", 3, bytes("three")));
            holder.setAutoCommit(false);
            try (PreparedStatement ps = holder.prepareStatement("SELECT 1 FROM fencegate_item WHERE resource = ? FOR UPDATE")) {
                ps.setBytes(1, (p + "held").getBytes(StandardCharsets.UTF_8));
                ps.executeQuery().close();
            }
            CompletionStage<WriteResult> occupying = store.write(p + "held", 2, bytes("v2"));
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> batches.size() == 4);
            CompletionStage<WriteResult> fresh = store.write(p + "fresh", 5, bytes("five"));
            CompletionStage<WriteResult> stale = store.write(p + "newer", 5, bytes("five"));
            CompletionStage<WriteResult> update = store.write(p + "older", 5, bytes("five"));
            holder.commit();
            assertThat(await(occupying)).isEqualTo(new Applied(1));
            assertThat(await(fresh)).isEqualTo(new Applied(0));
            assertThat(await(stale)).isEqualTo(new Stale(9, 9, 5));
            assertThat(await(update)).isEqualTo(new Applied(3));
            assertThat(batches).contains(List.of(p + "fresh", p + "newer", p + "older"));
            assertThat(((Found) await(store.read(p + "newer"))).value()).asString(StandardCharsets.UTF_8).isEqualTo("nine");
            assertThat(((Found) await(store.read(p + "older"))).token()).isEqualTo(5);
            assertThat(((Found) await(store.read(p + "fresh"))).token()).isEqualTo(5);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
