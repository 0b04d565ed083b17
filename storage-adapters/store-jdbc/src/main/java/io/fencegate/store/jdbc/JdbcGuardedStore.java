package io.fencegate.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import io.fencegate.schema.FencegateSchema.Dialect;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.Applied;
import io.fencegate.store.ClaimResult;
import io.fencegate.store.GuardedOp;
import io.fencegate.store.ItemClaim;
import io.fencegate.store.TransactionResult;
import io.fencegate.store.backend.ItemTransactions;
import io.fencegate.store.Executed;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStatements;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.NamedSql;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import io.fencegate.store.StatementResult;
import io.fencegate.store.StoreClaimedException;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.StoreUnavailableException;
import io.fencegate.store.WriteResult;
import io.fencegate.store.backend.GuardDecision;
import io.fencegate.store.backend.GuardInputs;
import io.fencegate.store.backend.ItemState;
import io.fencegate.store.backend.WriteCoalescer;
import io.fencegate.store.sql.StoreClaim;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import javax.sql.DataSource;

/**
 * A {@link GuardedStore} on {@code fencegate_item} and {@link GuardedStatements} on
 * {@code fencegate_fence}, for PostgreSQL, MySQL/MariaDB and H2.
 *
 * <p>Every operation is one short transaction that first locks the item's row
 * ({@code SELECT … FOR UPDATE}, creating a missing row race-free), compares the token under the
 * rule in Java, then changes the row and commits: the decision and the change cannot be separated,
 * and the previous token is read under the same lock, so {@link Applied#previousToken()} is exact.
 * Applied/stale is never judged from an update count (MariaDB counts found rows, not changed ones).
 * A first write is insert + commit; a later one select + update + commit. On PostgreSQL, writes,
 * deletes and fenced reads are each one statement in autocommit, one round trip
 * ({@link PostgresOneStatement}); the guard-row statements always use the transaction. On
 * MySQL/MariaDB the writes and deletes in flight when a thread is free share one transaction
 * ({@link MySqlBatchWrites}, {@link WriteCoalescer}), judged row by row the same way.
 *
 * <p>A database / schema belongs to one store name: the first store to open it claims it, and a
 * store with another name is refused at open ({@link StoreClaimedException}); two stores on one
 * DataSource must share a name. Keys longer than the key column are refused, never truncated.
 *
 * <p>Blocking JDBC runs on the store's own threads ({@link Transactions}); methods return at once.
 */
public final class JdbcGuardedStore implements GuardedStore, GuardedStatements {

    /** Most writes one MySQL/MariaDB batch carries. */
    private static final int MAX_BATCH = 128;
    /** Most bytes one MySQL/MariaDB batch carries (see {@link WriteCoalescer}). */
    private static final int MAX_BATCH_BYTES = 1 << 20;

    private final Transactions tx;
    private final GuardRule rule;
    private final StoreLimits limits;
    private final Dialect dialect;
    private final GuardRow items;
    private final GuardRow fences;
    private final int timeoutSeconds;
    private final String readSql;
    private final HikariDataSource ownPool;
    private final PostgresOneStatement oneStatement;
    private final MySqlBatchWrites batchWrites;
    private final WriteCoalescer writes;
    private final JdbcItemTransactions transactions;

    private JdbcGuardedStore(DataSource dataSource, HikariDataSource ownPool, JdbcStoreOptions options, boolean migrate) {
        this.ownPool = ownPool;
        this.rule = options.rule();
        this.timeoutSeconds = (int) Math.max(1, options.queryTimeout().toSeconds());
        try (Connection c = dataSource.getConnection()) {
            this.dialect = Dialect.of(c);
            // Keys past the key column are refused here, never handed to a database that
            // could truncate them into another item's key (FencegateSchema.MAX_KEY_BYTES).
            this.limits = ValueLimits.effective(c, dialect, options.limits()).atMostKeyBytes(FencegateSchema.MAX_KEY_BYTES);
        } catch (SQLException e) {
            throw Transactions.translate(e);
        }
        if (migrate) {
            FencegateSchema.migrate(dataSource);
        }
        claim(dataSource, options.name(), timeoutSeconds);
        this.items = GuardRow.items(dialect);
        this.fences = GuardRow.fences(dialect);
        this.readSql = "SELECT token, fence, val FROM fencegate_item WHERE resource = ?";
        this.transactions = new JdbcItemTransactions(items, rule, timeoutSeconds);
        this.oneStatement = dialect == Dialect.POSTGRESQL ? new PostgresOneStatement(rule) : null;
        // READ COMMITTED everywhere: MySQL's default REPEATABLE READ takes gap locks on a
        // missing row, and two first writers of one key would deadlock on them.
        this.tx = new Transactions(dataSource, Connection.TRANSACTION_READ_COMMITTED, options.poolSize(), options.name());
        if (dialect == Dialect.MYSQL) {
            // One batch a thread: what queues meanwhile goes out together when one is free. Its
            // bytes stay within a packet (the value limit is half a packet, for escaping).
            this.batchWrites = new MySqlBatchWrites(rule);
            this.writes = new WriteCoalescer(options.poolSize(), MAX_BATCH,
                    Math.max(1, Math.min(limits.maxValueBytes(), MAX_BATCH_BYTES)), this::runBatch);
        } else {
            this.batchWrites = null;
            this.writes = null;
        }
    }

    /**
     * A store on the application's own data source (pooled; the store never closes it). The
     * store's threads number {@code options.poolSize()}; keep it at most the pool's size.
     * Migrating (the default) takes two connections at once: Flyway locks with one. On MySQL and
     * MariaDB configure the pool with READ COMMITTED (HikariCP {@code transactionIsolation}):
     * otherwise every call switches the connection's isolation and back, two extra round trips.
     */
    public static JdbcGuardedStore over(DataSource dataSource, JdbcStoreOptions options) {
        options.validate();
        return new JdbcGuardedStore(dataSource, null, options, options.migrate());
    }

    /**
     * Claims the database / schema for the store's name, or refuses to open: it belongs to a
     * store with another name ({@link StoreClaim}). Every store on one DataSource must have the
     * same name.
     */
    private static void claim(DataSource dataSource, String name, int timeoutSeconds) {
        try (Connection c = dataSource.getConnection()) {
            String owner = StoreClaim.claim(c, name, timeoutSeconds);
            if (!owner.equals(name)) {
                throw new StoreClaimedException(name, owner, where(c));
            }
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            if (state.equals("42P01") || state.equals("42S02") || state.equals("42S04") || state.equals("42102")) {
                throw new IllegalStateException("fencegate_store_claim is missing: apply fencegate's migrations "
                        + "(up to V4) before opening store '" + name + "'", e);
            }
            throw Transactions.translate(e);
        }
    }

    /** The claimed place, for the refusal: database (catalog) and schema, no credentials. */
    private static String where(Connection c) throws SQLException {
        String product = c.getMetaData().getDatabaseProductName();
        String schema = c.getSchema();
        return product + " database '" + c.getCatalog() + "'" + (schema == null ? "" : " schema '" + schema + "'");
    }

    /** A store with its own HikariCP pool on {@code options.jdbcUrl()}, closed with the store. */
    public static JdbcGuardedStore open(JdbcStoreOptions options) {
        options.validateForOwnPool();
        HikariDataSource pool;
        try {
            if (options.migrate()) {
                // Flyway holds two connections at once; the store's own pool may be smaller.
                HikariConfig migration = poolConfig(options);
                migration.setMaximumPoolSize(2);
                migration.setPoolName("fencegate-" + options.name() + "-migrate");
                try (HikariDataSource once = new HikariDataSource(migration)) {
                    FencegateSchema.migrate(once);
                }
            }
            pool = new HikariDataSource(poolConfig(options));
        } catch (HikariPool.PoolInitializationException e) {
            throw new StoreUnavailableException("cannot reach " + options.jdbcUrl() + ": " + e.getMessage(), e);
        }
        try {
            return new JdbcGuardedStore(pool, pool, options, false);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /** The pool settings {@link #open} uses: bounded connect, socket and validation timeouts. */
    static HikariConfig poolConfig(JdbcStoreOptions options) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(options.jdbcUrl());
        config.setUsername(options.username());
        config.setPassword(options.password());
        config.setPoolName("fencegate-" + options.name());
        config.setMaximumPoolSize(options.poolSize());
        config.setAutoCommit(false);
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        config.setExceptionOverride(new BrokenConnections());
        long connectMs = options.connectTimeout().toMillis();
        config.setConnectionTimeout(connectMs);
        config.setValidationTimeout(Math.max(250, Math.min(connectMs, 2000)));
        // A socket that stops answering (not closed: a cut cable, a frozen server) must not hang a
        // call past the query timeout; the drivers take these in different units.
        long socketMs = options.queryTimeout().toMillis() + 2000;
        String url = options.jdbcUrl();
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            config.addDataSourceProperty("connectTimeout", String.valueOf(connectMs));
            config.addDataSourceProperty("socketTimeout", String.valueOf(socketMs));
        } else if (url.startsWith("jdbc:postgresql:")) {
            config.addDataSourceProperty("connectTimeout", String.valueOf(Math.max(1, connectMs / 1000)));
            config.addDataSourceProperty("socketTimeout", String.valueOf(Math.max(1, socketMs / 1000)));
        }
        return config;
    }

    @Override
    public CompletionStage<WriteResult> write(String key, long token, byte[] value) {
        return GuardInputs.checked(() -> limits.checkWrite(key, token, value), () -> writeOrDelete(key, token, value));
    }

    private CompletionStage<WriteResult> writeOrDelete(String key, long token, byte[] value) {
        if (oneStatement != null) {
            return tx.submitAutocommit(c -> oneStatement.write(c, key, token, value, timeoutSeconds));
        }
        if (writes != null) {
            return writes.submit(key, token, value);
        }
        return tx.submit(c -> guardedWrite(c, key, token, value));
    }

    /**
     * MySQL/MariaDB: all at once into the coalescer, so those that fit go as one transaction
     * ({@link MySqlBatchWrites}); other databases: each on its own, as {@link #write}.
     */
    @Override
    public List<CompletionStage<WriteResult>> writeAll(List<GuardedOp> ops) {
        if (writes == null) {
            return GuardedStore.super.writeAll(ops);
        }
        return GuardInputs.checkedAll(ops, op -> {
            if (op.isDelete()) {
                limits.checkGuarded(op.key(), op.token());
            } else {
                limits.checkWrite(op.key(), op.token(), op.value());
            }
        }, writes::submitAll);
    }

    /**
     * One batch of {@link WriteCoalescer} (MySQL/MariaDB): a lone write as before, more in one
     * transaction ({@link MySqlBatchWrites}). A batch that fails for any reason but an unreachable
     * database (one row it cannot take, say) rolled back whole, and runs again write by write, so
     * each write gets its own answer or its own error; an unreachable database fails them all.
     */
    private CompletionStage<?> runBatch(List<WriteCoalescer.Write> batch) {
        if (batch.size() == 1) {
            return answer(batch.get(0));
        }
        return tx.submit(c -> batchWrites.write(c, batch, timeoutSeconds)).handle((answers, failure) -> {
            if (failure == null) {
                for (int i = 0; i < batch.size(); i++) {
                    batch.get(i).answer().complete(answers.get(i));
                }
                return CompletableFuture.completedFuture(null);
            }
            if (failure instanceof StoreUnavailableException
                    || failure instanceof CompletionException && failure.getCause() instanceof StoreUnavailableException) {
                batch.forEach(w -> w.settle(null, failure));
                return CompletableFuture.completedFuture(null);
            }
            return CompletableFuture.allOf(batch.stream().map(this::answer).toArray(CompletableFuture[]::new));
        }).thenCompose(again -> again);
    }

    /** For tests: the coalescer the writes go through (MySQL/MariaDB), or null. */
    WriteCoalescer writes() {
        return writes;
    }

    /** Runs one write alone and completes its answer; the stage ends when it is answered. */
    private CompletableFuture<?> answer(WriteCoalescer.Write w) {
        return tx.submit(c -> guardedWrite(c, w.key(), w.token(), w.value())).toCompletableFuture()
                .whenComplete(w::settle)
                .handle((result, failure) -> null);
    }

    @Override
    public CompletionStage<WriteResult> delete(String key, long token) {
        return GuardInputs.checked(() -> limits.checkGuarded(key, token), () -> writeOrDelete(key, token, null));
    }

    /** Write and delete: a delete stores a NULL value, a tombstone that keeps the token. */
    private WriteResult guardedWrite(Connection c, String key, long token, byte[] value) throws SQLException {
        ItemState row = items.lock(c, key, false, timeoutSeconds);
        if (row == null) {
            // The decision on an absent item always applies: insert it decided (race-free).
            if (items.insertIfMissing(c, key, value, token, token, timeoutSeconds)) {
                return GuardDecision.write(rule, ItemState.ABSENT, token);
            }
            row = items.lockAfterLostRace(c, key, false, timeoutSeconds);
        }
        WriteResult decision = GuardDecision.write(rule, row, token);
        if (decision instanceof Applied) {
            items.advance(c, key, value, token, timeoutSeconds);
        }
        return decision;
    }

    @Override
    public CompletionStage<ReadResult> read(String key) {
        return GuardInputs.checked(() -> limits.checkKey(key), () -> plainRead(key));
    }

    private CompletionStage<ReadResult> plainRead(String key) {
        Transactions.Work<ReadResult> select = c -> {
            try (PreparedStatement ps = c.prepareStatement(readSql)) {
                ps.setQueryTimeout(timeoutSeconds);
                items.bindKey(ps, 1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return GuardDecision.plainRead(rs.next()
                            ? new ItemState(rs.getLong(1), rs.getLong(2), rs.getBytes(3)) : ItemState.ABSENT);
                }
            }
        };
        // Postgres: one round trip in autocommit; elsewhere switching autocommit costs more than the commit.
        return oneStatement != null ? tx.submitAutocommit(select) : tx.submit(select);
    }

    @Override
    public CompletionStage<ReadResult> fencedRead(String key, long token) {
        return GuardInputs.checked(() -> limits.checkGuarded(key, token), () -> guardedRead(key, token));
    }

    private CompletionStage<ReadResult> guardedRead(String key, long token) {
        if (oneStatement != null) {
            return tx.submitAutocommit(c -> oneStatement.fencedRead(c, key, token, timeoutSeconds));
        }
        return tx.submit(c -> {
            ItemState row = items.lock(c, key, true, timeoutSeconds);
            if (row == null) {
                // A fence-only row: from now on no token below this one can create the item.
                if (items.insertIfMissing(c, key, null, 0, token, timeoutSeconds)) {
                    return GuardDecision.fencedRead(ItemState.ABSENT, token);
                }
                row = items.lockAfterLostRace(c, key, true, timeoutSeconds);
            }
            ReadResult decision = GuardDecision.fencedRead(row, token);
            if (!(decision instanceof Stale) && GuardDecision.raisesFence(row, token)) {
                items.raiseFence(c, key, token, timeoutSeconds);
            }
            return decision;
        });
    }

    @Override
    public boolean transacts() {
        return true;
    }

    /** One JDBC transaction over every item's row, locked in key order ({@link JdbcItemTransactions}). */
    @Override
    public CompletionStage<TransactionResult> transact(List<GuardedOp> ops) {
        return GuardInputs.checked(() -> ItemTransactions.checkOps(limits, ops), () -> {
            List<GuardedOp> copy = List.copyOf(ops);
            return tx.submit(c -> transactions.transact(c, copy));
        });
    }

    @Override
    public CompletionStage<ClaimResult> fencedReadAll(List<ItemClaim> claims) {
        return GuardInputs.checked(() -> ItemTransactions.checkClaims(limits, claims), () -> {
            List<ItemClaim> copy = List.copyOf(claims);
            return tx.submit(c -> transactions.fencedReadAll(c, copy));
        });
    }

    /**
     * Runs {@code sql} under the guard row of {@code key} (see {@link GuardRowTransactions} for the
     * same mechanism from jOOQ code). Rows = the statement's update count.
     */
    @Override
    public CompletionStage<StatementResult> execute(String key, long token, NamedSql sql, Map<String, Object> params) {
        return GuardInputs.checked(() -> {
            limits.checkGuarded(key, token);
            return sql.bind(params == null ? Map.of() : params);
        }, values -> tx.submit(c -> guarded(c, key, token, conn -> {
            try (PreparedStatement ps = conn.prepareStatement(sql.positional())) {
                ps.setQueryTimeout(timeoutSeconds);
                for (int i = 0; i < values.size(); i++) {
                    ps.setObject(i + 1, values.get(i));
                }
                ps.execute();
                return Math.max(0, ps.getUpdateCount());
            }
        })));
    }

    /** The guard-row transaction body, shared with {@link GuardRowTransactions}: lock, check, run, advance. */
    <E extends Exception> StatementResult guarded(Connection c, String key, long token, GuardedWork<E> work)
            throws SQLException, E {
        return guarded(fences, rule, c, key, token, work, timeoutSeconds);
    }

    static <E extends Exception> StatementResult guarded(GuardRow fences, GuardRule rule, Connection c, String key,
            long token, GuardedWork<E> work, int timeoutSeconds) throws SQLException, E {
        ItemState row = fences.lockOrCreate(c, key, false, timeoutSeconds);
        if (GuardDecision.write(rule, row, token) instanceof Stale stale) {
            return stale;
        }
        int rows = work.run(c);
        fences.advance(c, key, null, token, timeoutSeconds);
        return new Executed(row.token(), rows);
    }

    /** Work run under a locked guard row, on its connection. */
    @FunctionalInterface
    interface GuardedWork<E extends Exception> {
        int run(Connection connection) throws SQLException, E;
    }

    @Override
    public GuardRule rule() {
        return rule;
    }

    /**
     * The limits in force: the configured ones, lowered to what the database can take (keys to
     * {@link FencegateSchema#MAX_KEY_BYTES}, values to MySQL's packet size).
     */
    @Override
    public StoreLimits limits() {
        return limits;
    }

    @Override
    public void close() {
        tx.close();
        if (ownPool != null) {
            ownPool.close();
        }
    }
}
