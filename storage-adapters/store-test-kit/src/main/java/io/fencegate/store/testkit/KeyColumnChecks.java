package io.fencegate.store.testkit;

import static io.fencegate.store.testkit.Stages.await;
import static io.fencegate.store.testkit.Stages.failureOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardedStatements;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Missing;
import io.fencegate.store.NamedSql;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Keys longer than a SQL store's key column: a store configured for longer keys must still
 * refuse them before the database sees them. A database that truncates (MariaDB's
 * {@code INSERT IGNORE} into a {@code VARBINARY(2048)}) would otherwise acknowledge the write
 * under a different key, one guarded by a different lock.
 */
public final class KeyColumnChecks {

    private KeyColumnChecks() {
    }

    /**
     * {@code store} was opened with a key limit above {@code columnBytes}. Keys of
     * {@code columnBytes + 1} and 4096 ASCII bytes, and a multi-byte key of at most
     * {@code columnBytes} characters but more bytes, are refused by every operation with
     * {@link IllegalArgumentException}; the key a truncation would hit keeps its value.
     */
    public static void assertKeysPastTheColumnAreRefused(GuardedStore store, String prefix, int columnBytes) {
        String base = prefix + "long/";
        String atColumn = base + "k".repeat(columnBytes - utf8(base));
        assertThat(utf8(atColumn)).isEqualTo(columnBytes);
        assertThat(await(store.write(atColumn, 5, bytes("kept")))).isEqualTo(new Applied(0));

        // Its first columnBytes bytes are a key nobody wrote: a truncating insert would create it.
        String freshCut = base + "f".repeat(columnBytes - utf8(base));
        String fresh = freshCut + "-tail";
        String oneOver = atColumn + "x";
        String fourK = base + "k".repeat(4096 - utf8(base));
        String multiByte = base + "é".repeat(columnBytes - base.length()); // columnBytes chars, more bytes
        assertThat(multiByte.length()).isLessThanOrEqualTo(columnBytes);
        assertThat(utf8(multiByte)).isGreaterThan(columnBytes);

        List<Supplier<? extends CompletionStage<?>>> calls = new ArrayList<>();
        for (String tooLong : List.of(fresh, oneOver, fourK, multiByte)) {
            calls.add(() -> store.write(tooLong, 9, bytes("truncated?")));
            calls.add(() -> store.delete(tooLong, 9));
            calls.add(() -> store.fencedRead(tooLong, 9));
            calls.add(() -> store.read(tooLong));
            if (store instanceof GuardedStatements statements) {
                calls.add(() -> statements.execute(tooLong, 9, NamedSql.parse("SELECT 1"), Map.of()));
            }
        }
        for (Supplier<? extends CompletionStage<?>> call : calls) {
            assertThat(failureOf(call)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("longer than " + columnBytes + " bytes");
        }
        Found kept = (Found) await(store.read(atColumn));
        assertThat(kept.value()).asString(StandardCharsets.UTF_8).isEqualTo("kept");
        assertThat(kept.token()).isEqualTo(5);
        assertThat(kept.fence()).isEqualTo(5);
        assertThat(await(store.read(freshCut))).isEqualTo(new Missing(0, 0));
        assertThat(store.limits().maxKeyBytes()).as("the store's key limit").isLessThanOrEqualTo(columnBytes);
    }

    private static int utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
