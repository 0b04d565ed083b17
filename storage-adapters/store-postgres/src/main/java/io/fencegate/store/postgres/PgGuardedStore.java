package io.fencegate.store.postgres;

import static io.fencegate.store.sql.PostgresGuardSql.ADVANCE_GUARD_ROW;
import static io.fencegate.store.sql.PostgresGuardSql.CREATE_GUARD_ROW;
import static io.fencegate.store.sql.PostgresGuardSql.FENCED_READ;
import static io.fencegate.store.sql.PostgresGuardSql.LOCK_GUARD_ROW;
import static io.fencegate.store.sql.PostgresGuardSql.READ;

import io.fencegate.schema.FencegateSchema;
import io.fencegate.spi.ConnectFailure;
import io.fencegate.store.ClaimResult;
import io.fencegate.store.Executed;
import io.fencegate.store.GuardedOp;
import io.fencegate.store.ItemClaim;
import io.fencegate.store.TransactionResult;
import io.fencegate.store.backend.ItemTransactions;
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
import io.fencegate.store.sql.PostgresGuardSql;
import io.fencegate.store.sql.StoreClaim;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClientOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The guarded store on PostgreSQL through the reactive vertx-pg-client: prepared, cached and
 * pipelined statements; a fenced read is one statement and one round trip ({@link PostgresGuardSql}).
 * Writes and deletes are coalesced ({@link WriteCoalescer}): those in flight when one of the
 * {@link #writeBatches write batches} is free go as one guarded upsert, one round trip and one
 * commit for the lot, each still answered on its own; a lone write goes at once, alone. Nothing
 * blocks: every call returns at once and completes on the pool's event loop. Every operation is bounded by {@link PgStoreOptions#operationTimeout()}; a
 * failure to reach the server is a {@link StoreUnavailableException}, and the pool reconnects by
 * itself when the server is back.
 *
 * <p>The tables come from fencegate's Flyway migrations ({@code FencegateSchema.migrate(dataSource)}
 * with the JDBC driver, once, at deploy time, up to V5 for writes); this store does not run DDL.
 */
public final class PgGuardedStore implements GuardedStore, GuardedStatements {
    /** A first-write race is lost at most once per contender; more means something else is wrong. */
    private static final Logger log = LoggerFactory.getLogger(PgGuardedStore.class);
    /** How long an open keeps trying a claim that timed out on a server that accepts connections. */
    static final Duration START_DEADLINE = Duration.ofSeconds(60);
    private static final int MAX_RACE_RETRIES = 5;

    /** Most writes one statement carries: enough to take 64 in flight on few connections, small to plan. */
    private static final int MAX_BATCH = 128;
    /** Most bytes one statement carries: far below a parameter's 1 GB; a larger value goes alone. */
    private static final long MAX_BATCH_BYTES = 4 << 20;

    private final Pool pool;
    private final PgStoreOptions options;
    private final WriteCoalescer writes;
    private final StoreLimits limits;
    private final PgItemTransactions transactions;

    private PgGuardedStore(Pool pool, PgStoreOptions options) {
        this.pool = pool;
        this.options = options;
        this.writes = new WriteCoalescer(writeBatches(options.poolSize()), MAX_BATCH, MAX_BATCH_BYTES,
                new PgBatchWrites(pool, options.rule())::run);
        // VARCHAR(2048) counts characters, the limit counts UTF-8 bytes: capping the bytes at the
        // column's length fits every key (n bytes are at most n characters).
        this.limits = options.limits().atMostKeyBytes(FencegateSchema.MAX_KEY_BYTES);
        this.transactions = new PgItemTransactions(pool, options.rule());
    }

    /**
     * Write batches in flight at once: a quarter of the connections (at least one). With one a
     * connection, 16 writes in flight on 16 connections were 16 single-row statements and 16
     * commits, and the server's CPU per write doubled; on fewer, what queues meanwhile goes out
     * together, one statement and one commit for the lot. A lone write still leaves at once, and
     * reads keep the whole pool.
     */
    static int writeBatches(int poolSize) {
        return Math.max(1, poolSize / 4);
    }

    /**
     * Opens the store and claims its schema for {@link PgStoreOptions#name()}: blocks until the
     * claim is read (bounded by the connect and operation timeouts), so call it off any event
     * loop. Refused with {@link IllegalArgumentException} naming the option if {@code options}
     * do not {@link PgStoreOptions#validate validate}; with {@link StoreClaimedException} if the
     * schema belongs to a store with another name; with {@link StoreUnavailableException} if the
     * server cannot be reached.
     */
    public static PgGuardedStore open(Vertx vertx, PgStoreOptions options) {
        options.validate();
        PgConnectOptions connect = new PgConnectOptions()
                .setHost(options.host()).setPort(options.port()).setDatabase(options.database())
                .setUser(options.user()).setPassword(options.password())
                .setCachePreparedStatements(true)
                .setPipeliningLimit(256);
        if (options.schema() != null) {
            connect.setProperties(Map.of("search_path", options.schema()));
        }
        int connectMs = (int) options.connectTimeout().toMillis();
        // The pool's wait for a connection includes making one: TCP connect, start-up, authentication,
        // and on a cold JVM the client's first class loading on the event loop. Several gateways starting
        // at once on a busy machine took longer than the TCP connect timeout for that, and the store
        // then called a server that was up "unavailable". Every operation is bounded by the operation
        // timeout anyway; the wait gets the connect and operation timeouts together.
        int poolWaitMs = (int) options.connectTimeout().plus(options.operationTimeout()).toMillis();
        Pool pool = PgBuilder.pool()
                .with(new PoolOptions().setMaxSize(options.poolSize())
                        .setConnectionTimeout(poolWaitMs).setConnectionTimeoutUnit(TimeUnit.MILLISECONDS))
                .with(new NetClientOptions().setConnectTimeout(connectMs))
                .connectingTo(connect)
                .using(vertx)
                .build();
        PgGuardedStore store = new PgGuardedStore(pool, options);
        try {
            store.claim();
            return store;
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /**
     * See {@link StoreClaim}: insert the claim unless there is one, then read whose it is; and
     * check that the writes' column (V5) is there, so a schema not migrated that far is refused
     * at open rather than on every write.
     */
    private void claim() {
        String name = options.name();
        // The claim at open is bounded by a start-up deadline, not by one operation timeout, and a wait
        // for a pooled connection that runs out is tried again within it: the first statements of a cold
        // JVM load the client's classes on the event loop, and gateways started at once on a busy machine
        // took longer than an operation timeout for that while the server was up and idle. Only a
        // connection the server refuses, or the deadline passed, fails the open.
        long deadline = System.nanoTime() + START_DEADLINE.toNanos();
        String claimedBy;
        while (true) {
            try {
                claimedBy = claimOnce(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                break;
            } catch (StoreUnavailableException e) {
                if (ConnectFailure.reason(e).isPresent() || System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                log.info("store '{}': the claim of {} got no answer in time ({}); trying again until {} s after the start",
                        name, where(), e.getMessage(), START_DEADLINE.toSeconds());
            }
        }
        if (!claimedBy.equals(name)) {
            throw new StoreClaimedException(name, claimedBy, where());
        }
    }

    private String claimOnce(long boundMs) {
        String name = options.name();
        Future<String> owner = pool.preparedQuery(StoreClaim.INSERT_PG).execute(Tuple.of(name))
                .compose(inserted -> pool.query("SELECT previous_token FROM fencegate_item WHERE FALSE").execute())
                .compose(checked -> pool.preparedQuery(StoreClaim.SELECT).execute())
                .map(rows -> rows.iterator().next().getString(0));
        try {
            return owner.timeout(boundMs, TimeUnit.MILLISECONDS).recover(translate(boundMs)).toCompletionStage().toCompletableFuture()
                    .get(boundMs + 1000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof PgException pg && ("42P01".equals(pg.getSqlState()) || "42703".equals(pg.getSqlState()))) {
                throw new IllegalStateException("fencegate's tables are not up to date (" + pg.getErrorMessage()
                        + "): apply fencegate's migrations (up to V5) before opening store '" + name + "'", pg);
            }
            throw cause instanceof RuntimeException r ? r : new StoreUnavailableException(String.valueOf(cause), cause);
        } catch (TimeoutException e) {
            throw new StoreUnavailableException("postgres " + where() + ": no answer to the store claim", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted while opening store '" + name + "'", e);
        }
    }

    private String where() {
        return "PostgreSQL database '" + options.database() + "'"
                + (options.schema() == null ? " (default schema)" : " schema '" + options.schema() + "'");
    }

    @Override
    public CompletionStage<WriteResult> write(String key, long token, byte[] value) {
        return GuardInputs.checked(() -> limits.checkWrite(key, token, value), () -> coalesced(key, token, value));
    }

    @Override
    public CompletionStage<WriteResult> delete(String key, long token) {
        return GuardInputs.checked(() -> limits.checkGuarded(key, token), () -> coalesced(key, token, null));
    }

    /** All at once into the coalescer: those that fit go as one statement and one commit. */
    @Override
    public List<CompletionStage<WriteResult>> writeAll(List<GuardedOp> ops) {
        Context caller = Vertx.currentContext();
        return GuardInputs.checkedAll(ops, this::check, checked -> writes.submitAll(checked).stream()
                .map(answer -> bounded(caller == null ? Future.fromCompletionStage(answer) : Future.fromCompletionStage(answer, caller)))
                .toList());
    }

    private void check(GuardedOp op) {
        if (op.isDelete()) {
            limits.checkGuarded(op.key(), op.token());
        } else {
            limits.checkWrite(op.key(), op.token(), op.value());
        }
    }

    /**
     * Queues the write for the next batch; answered on the caller's Vert.x context if it has one,
     * as the pool's own futures are, so a caller on an event loop goes on there.
     */
    private CompletionStage<WriteResult> coalesced(String key, long token, byte[] value) {
        Context caller = Vertx.currentContext();
        CompletionStage<WriteResult> answer = writes.submit(key, token, value);
        return bounded(caller == null ? Future.fromCompletionStage(answer) : Future.fromCompletionStage(answer, caller));
    }

    /** For tests: the coalescer the writes go through. */
    WriteCoalescer writes() {
        return writes;
    }

    @Override
    public CompletionStage<ReadResult> read(String key) {
        return GuardInputs.checked(() -> limits.checkKey(key), () -> bounded(pool.preparedQuery(READ).execute(Tuple.of(key))
                .map(rows -> GuardDecision.plainRead(rows.size() == 0 ? ItemState.ABSENT : item(rows.iterator().next())))));
    }

    /** A row of {@code SELECT val, token, fence}. */
    private static ItemState item(Row r) {
        Buffer value = r.getBuffer(0);
        return new ItemState(r.getLong(1), r.getLong(2), value == null ? null : value.getBytes());
    }

    @Override
    public CompletionStage<ReadResult> fencedRead(String key, long token) {
        return GuardInputs.checked(() -> limits.checkGuarded(key, token), () -> bounded(fenced(key, token, 0)));
    }

    private Future<ReadResult> fenced(String key, long token, int attempt) {
        return pool.preparedQuery(FENCED_READ).execute(Tuple.of(key, token)).compose(rows -> {
            Row r = rows.iterator().next();
            if (r.getBoolean(3)) {
                return Future.succeededFuture(GuardDecision.fencedRead(ItemState.ABSENT, token));
            }
            Long current = r.getLong(0);
            if (current == null) {
                return retry(attempt, key, () -> fenced(key, token, attempt + 1));
            }
            Buffer value = r.getBuffer(2);
            return Future.succeededFuture(GuardDecision.fencedRead(
                    new ItemState(current, r.getLong(1), value == null ? null : value.getBytes()), token));
        });
    }

    /**
     * One transaction: create the guard row if missing, lock it, check the token, run the
     * statement with its parameters bound, advance the guard row, commit. Stale: nothing runs.
     */
    @Override
    public CompletionStage<StatementResult> execute(String key, long token, NamedSql sql, Map<String, Object> params) {
        return GuardInputs.checked(() -> {
            limits.checkGuarded(key, token);
            return Tuple.from(sql.bind(params));
        }, bound -> bounded(guarded(key, token, sql.dollarNumbered(), bound)));
    }

    private Future<StatementResult> guarded(String key, long token, String statement, Tuple bound) {
        return pool.withTransaction(conn -> conn.preparedQuery(CREATE_GUARD_ROW)
                .execute(Tuple.of(key))
                .compose(created -> conn.preparedQuery(LOCK_GUARD_ROW).execute(Tuple.of(key)))
                .compose(locked -> {
                    Row guard = locked.iterator().next();
                    long current = guard.getLong(0);
                    if (GuardDecision.write(options.rule(), ItemState.of(current, guard.getLong(1)), token)
                            instanceof Stale stale) {
                        return Future.succeededFuture(stale);
                    }
                    return conn.preparedQuery(statement).execute(bound)
                            .recover(e -> Future.failedFuture(e instanceof PgException pg && !unavailable(pg)
                                    ? new IllegalArgumentException("statement failed: " + pg.getMessage(), pg) : e))
                            .compose(ran -> conn.preparedQuery(ADVANCE_GUARD_ROW).execute(Tuple.of(key, token))
                                    .map(advanced -> (StatementResult) new Executed(current, ran.rowCount())));
                }));
    }

    @Override
    public boolean transacts() {
        return true;
    }

    /** One transaction over every item's row, locked in key order ({@link PgItemTransactions}). */
    @Override
    public CompletionStage<TransactionResult> transact(List<GuardedOp> ops) {
        return GuardInputs.checked(() -> ItemTransactions.checkOps(limits, ops),
                () -> bounded(transactions.transact(List.copyOf(ops))));
    }

    @Override
    public CompletionStage<ClaimResult> fencedReadAll(List<ItemClaim> claims) {
        return GuardInputs.checked(() -> ItemTransactions.checkClaims(limits, claims),
                () -> bounded(transactions.fencedReadAll(List.copyOf(claims))));
    }

    private <T> Future<T> retry(int attempt, String key, Supplier<Future<T>> again) {
        if (attempt >= MAX_RACE_RETRIES) {
            return Future.failedFuture(new IllegalStateException("row of " + key + " vanished after a creation race"));
        }
        return again.get();
    }

    /** Bounds {@code f} by the operation timeout and turns connection trouble into StoreUnavailableException. */
    private <T> CompletionStage<T> bounded(Future<T> f) {
        return f.timeout(options.operationTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .recover(translate(options.operationTimeout().toMillis()))
                .toCompletionStage();
    }

    private <T> Function<Throwable, Future<T>> translate(long timeoutMs) {
        return e -> {
            if (e instanceof IllegalArgumentException || e instanceof IllegalStateException
                    || (e instanceof PgException pg && !unavailable(pg))) {
                return Future.failedFuture(e);
            }
            // A timeout says only that no answer came in time: on a busy gateway the server may be up and
            // idle, so it is not called unavailable.
            String why = e instanceof TimeoutException
                    ? "no answer within " + timeoutMs + " ms"
                    : "unavailable: " + e.getMessage();
            return Future.failedFuture(new StoreUnavailableException(
                    "postgres " + options.host() + ":" + options.port() + " " + why, e));
        };
    }

    /** Connection exceptions (08), server shutting down (57P), out of resources (53). */
    static boolean unavailable(PgException e) {
        String state = e.getSqlState();
        return state != null && (state.startsWith("08") || state.startsWith("57P") || state.startsWith("53"));
    }

    @Override
    public GuardRule rule() {
        return options.rule();
    }

    @Override
    public StoreLimits limits() {
        return limits;
    }

    @Override
    public void close() {
        pool.close();
    }
}
