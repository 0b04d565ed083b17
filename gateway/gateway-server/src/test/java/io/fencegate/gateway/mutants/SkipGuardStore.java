package io.fencegate.gateway.mutants;

import io.fencegate.store.Applied;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Stale;
import io.fencegate.store.WriteResult;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Mutant "skip the guard": a write the guard refuses is applied anyway, with the effect of one it
 * admitted ({@code val}, {@code token = fence = t}), and answered applied over the item's token.
 * The real JDBC store on MariaDB judges every write first; only what it refused is written here,
 * straight into its {@code fencegate_item} table, as a store whose condition was lost would.
 */
final class SkipGuardStore extends ForwardingGuardedStore {
    private static final String UNGUARDED_UPSERT = "INSERT INTO fencegate_item (resource, val, token, fence) VALUES (?, ?, ?, ?)"
            + " ON DUPLICATE KEY UPDATE val = VALUES(val), token = VALUES(token), fence = VALUES(fence)";

    private final String jdbcUrl;
    private final String user;
    /** Blocking JDBC off the store's own threads and the event loop, one write at a time. */
    private final ExecutorService unguarded = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "mutant-skip-guard");
        t.setDaemon(true);
        return t;
    });

    SkipGuardStore(GuardedStore real, String mariaDbUrl, String user) {
        super(real);
        this.jdbcUrl = mariaDbUrl;
        this.user = user;
    }

    @Override
    public CompletionStage<WriteResult> write(String key, long token, byte[] value) {
        return real.write(key, token, value).thenCompose(result -> result instanceof Stale stale
                ? CompletableFuture.supplyAsync(() -> writeUnguarded(key, token, value, stale), unguarded)
                : CompletableFuture.completedFuture(result));
    }

    private WriteResult writeUnguarded(String key, long token, byte[] value, Stale refused) {
        try (Connection c = DriverManager.getConnection(jdbcUrl, user, ""); PreparedStatement s = c.prepareStatement(UNGUARDED_UPSERT)) {
            s.setBytes(1, key.getBytes(StandardCharsets.UTF_8)); // VARBINARY key
            s.setBytes(2, value);
            s.setLong(3, token);
            s.setLong(4, token);
            s.executeUpdate();
            return new Applied(refused.currentToken());
        } catch (SQLException e) {
            throw new IllegalStateException("mutant skip-guard: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        unguarded.shutdownNow();
    }
}
