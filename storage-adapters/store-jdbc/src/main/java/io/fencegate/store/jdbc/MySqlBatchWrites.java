package io.fencegate.store.jdbc;

import io.fencegate.store.Applied;
import io.fencegate.store.GuardRule;
import io.fencegate.store.WriteResult;
import io.fencegate.store.backend.GuardDecision;
import io.fencegate.store.backend.ItemState;
import io.fencegate.store.backend.WriteCoalescer.Write;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * MySQL/MariaDB: the guarded writes of one batch in one transaction, one commit, a few round
 * trips whatever its size. All rows are locked first ({@code SELECT … FOR UPDATE} of every key;
 * the missing ones created empty by one {@code INSERT IGNORE}, then locked), so each write is
 * judged by {@link GuardDecision} on its row's locked state, exactly as a single write is; then
 * one multi-row {@code INSERT … ON DUPLICATE KEY UPDATE} stores the applied ones. Answers come
 * from the states read under the locks, never from update counts (MariaDB counts found rows).
 *
 * <p>An empty row (token 0, fence 0, no value) is what a missing item is to the guard, and every
 * one this creates is overwritten by its write before the commit (a write on a missing item
 * always applies). The ODKU sets no column from another, so MySQL's left-to-right evaluation of
 * its assignments cannot matter: the guard was decided before it, under the locks.
 */
final class MySqlBatchWrites {

    private final GuardRule rule;

    MySqlBatchWrites(GuardRule rule) {
        this.rule = rule;
    }

    /** The answers, in the batch's order. */
    List<WriteResult> write(Connection c, List<Write> batch, int timeoutSeconds) throws SQLException {
        Map<ByteBuffer, Write> byKey = new HashMap<>(batch.size() * 2);
        for (Write w : batch) {
            if (byKey.put(key(w), w) != null) {
                // Two strings with one UTF-8 form (unpaired surrogates): one row, so not one batch.
                throw new IllegalStateException("two keys of one batch are one row: " + w.key());
            }
        }
        Map<ByteBuffer, ItemState> states = lock(c, new ArrayList<>(byKey.keySet()), timeoutSeconds);
        // Created in the key index's order (unsigned bytes), as the locks are taken: two batches
        // creating the same rows cannot deadlock on them.
        List<ByteBuffer> missing = byKey.keySet().stream().filter(k -> !states.containsKey(k))
                .sorted((a, b) -> Arrays.compareUnsigned(a.array(), b.array())).toList();
        if (!missing.isEmpty()) {
            insertEmpty(c, missing, timeoutSeconds);
            states.putAll(lock(c, missing, timeoutSeconds));
            if (!states.keySet().containsAll(missing)) {
                // Only if another creator rolled back its row: the transaction is run again.
                throw new SQLException("a row vanished after a creation race", "40001");
            }
        }
        List<WriteResult> answers = new ArrayList<>(batch.size());
        List<Write> applied = new ArrayList<>(batch.size());
        for (Write w : batch) {
            WriteResult answer = GuardDecision.write(rule, states.get(key(w)), w.token());
            answers.add(answer);
            if (answer instanceof Applied) {
                applied.add(w);
            }
        }
        if (!applied.isEmpty()) {
            store(c, applied, timeoutSeconds);
        }
        return answers;
    }

    private static ByteBuffer key(Write w) {
        return ByteBuffer.wrap(w.key().getBytes(StandardCharsets.UTF_8));
    }

    /** Locks the rows of {@code keys} that exist, in the index's order; their token and fence. */
    private static Map<ByteBuffer, ItemState> lock(Connection c, List<ByteBuffer> keys, int timeoutSeconds)
            throws SQLException {
        String sql = "SELECT resource, token, fence FROM fencegate_item WHERE resource IN (" + marks(keys.size(), "?")
                + ") FOR UPDATE";
        Map<ByteBuffer, ItemState> states = new HashMap<>(keys.size() * 2);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setQueryTimeout(timeoutSeconds);
            for (int i = 0; i < keys.size(); i++) {
                ps.setBytes(i + 1, keys.get(i).array());
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    states.put(ByteBuffer.wrap(rs.getBytes(1)), ItemState.of(rs.getLong(2), rs.getLong(3)));
                }
            }
        }
        return states;
    }

    /** Creates empty rows for {@code keys}; a row a concurrent writer created first is left as it is. */
    private static void insertEmpty(Connection c, List<ByteBuffer> keys, int timeoutSeconds) throws SQLException {
        String sql = "INSERT IGNORE INTO fencegate_item (resource, val, token, fence) VALUES "
                + marks(keys.size(), "(?, NULL, 0, 0)");
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setQueryTimeout(timeoutSeconds);
            for (int i = 0; i < keys.size(); i++) {
                ps.setBytes(i + 1, keys.get(i).array());
            }
            ps.executeUpdate();
            GuardRow.refuseIgnoredErrors(ps.getWarnings(),
                    new String(keys.get(0).array(), StandardCharsets.UTF_8) + "' or one of " + (keys.size() - 1) + " more '");
        }
    }

    /** Sets value, token and fence of the locked rows of the applied writes, in one statement. */
    private static void store(Connection c, List<Write> applied, int timeoutSeconds) throws SQLException {
        String sql = "INSERT INTO fencegate_item (resource, val, token, fence) VALUES " + marks(applied.size(), "(?, ?, ?, ?)")
                + " ON DUPLICATE KEY UPDATE val = VALUES(val), token = VALUES(token), fence = VALUES(fence)";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setQueryTimeout(timeoutSeconds);
            int i = 1;
            for (Write w : applied) {
                ps.setBytes(i++, key(w).array());
                ps.setBytes(i++, w.value());
                ps.setLong(i++, w.token());
                ps.setLong(i++, w.token());
            }
            ps.executeUpdate();
        }
    }

    private static String marks(int n, String one) {
        return String.join(", ", Collections.nCopies(n, one));
    }
}
