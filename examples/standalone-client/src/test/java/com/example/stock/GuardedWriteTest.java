package com.example.stock;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.fencegate.store.Applied;
import io.fencegate.store.Stale;
import io.fencegate.store.jdbc.JdbcGuardedStore;
import io.fencegate.store.jdbc.JdbcStoreOptions;
import org.junit.jupiter.api.Test;

/** The published store-jdbc artifact, used as a library: a write with an older token is refused. */
class GuardedWriteTest {
    @Test
    void olderTokenIsRefusedAfterANewerOneWrote() {
        try (JdbcGuardedStore store = JdbcGuardedStore.open(new JdbcStoreOptions()
                .jdbcUrl("jdbc:h2:mem:stock;DB_CLOSE_DELAY=-1").username("sa").password(""))) {
            assertInstanceOf(Applied.class, store.write("stock/widget", 7, "1".getBytes(UTF_8)).toCompletableFuture().join());
            assertInstanceOf(Stale.class, store.write("stock/widget", 5, "0".getBytes(UTF_8)).toCompletableFuture().join());
        }
    }
}
