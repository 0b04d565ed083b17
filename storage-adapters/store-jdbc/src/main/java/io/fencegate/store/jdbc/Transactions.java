package io.fencegate.store.jdbc;

import io.fencegate.store.StoreUnavailableException;
import io.fencegate.store.backend.StoreThreads;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Where all blocking JDBC of a store runs: a dedicated pool of threads, one short transaction per
 * task, retried when the database broke a deadlock or a serialization conflict (the whole
 * transaction rolled back, so a retry is safe), and SQL failures translated once: a lost or
 * unreachable database, or a timeout, becomes {@link StoreUnavailableException}.
 */
final class Transactions implements AutoCloseable {

    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    private static final int ATTEMPTS = 5;

    private final DataSource dataSource;
    private final int isolation;
    private final ExecutorService executor;
    private final String name;

    Transactions(DataSource dataSource, int isolation, int threads, String name) {
        this.dataSource = dataSource;
        this.isolation = isolation;
        this.name = name;
        this.executor = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(100_000),
                StoreThreads.daemons("fencegate-jdbc-" + name));
    }

    /** Runs {@code work} in one transaction on the store's threads; commits unless it threw. */
    <T> CompletionStage<T> submit(Work<T> work) {
        try {
            return CompletableFuture.supplyAsync(() -> inTransaction(work), executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("store " + name + " is closed or overloaded", e));
        }
    }

    /**
     * Runs one self-contained statement in autocommit mode on the store's threads: one round trip
     * where the transaction's BEGIN/COMMIT would add one. {@code work} answers null to be run again
     * (a bounded number of times).
     */
    <T> CompletionStage<T> submitAutocommit(Work<T> work) {
        try {
            return CompletableFuture.supplyAsync(() -> autocommit(work), executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("store " + name + " is closed or overloaded", e));
        }
    }

    private <T> T autocommit(Work<T> work) {
        SQLException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try (Connection c = dataSource.getConnection()) {
                if (!c.getAutoCommit()) {
                    c.setAutoCommit(true);
                }
                T result = work.run(c);
                if (result != null) {
                    return result;
                }
                last = new SQLException("statement asked to be run again " + ATTEMPTS + " times", "40001");
            } catch (SQLException e) {
                if (!isRetryable(e)) {
                    throw translate(e);
                }
                last = e;
            }
        }
        throw translate(last);
    }

    /** Runs {@code work} in one transaction on the calling thread. */
    <T> T inTransaction(Work<T> work) {
        SQLException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try (Connection c = dataSource.getConnection()) {
                prepare(c);
                try {
                    T result = work.run(c);
                    c.commit();
                    return result;
                } catch (Throwable t) {
                    rollbackQuietly(c);
                    throw t;
                }
            } catch (SQLException e) {
                if (!isRetryable(e)) {
                    throw translate(e);
                }
                last = e;
            }
        }
        throw translate(last);
    }

    private void prepare(Connection c) throws SQLException {
        // Only touch what differs: on MariaDB each setter is a round trip.
        if (c.getAutoCommit()) {
            c.setAutoCommit(false);
        }
        if (c.getTransactionIsolation() != isolation) {
            c.setTransactionIsolation(isolation);
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignore) {
            // the connection is broken; the pool discards it and the database rolls back
        }
    }

    private static boolean isRetryable(SQLException e) {
        return isRetryable(e.getSQLState());
    }

    /** A serialization failure or a broken deadlock: the whole transaction rolled back, run it again. */
    static boolean isRetryable(String sqlState) {
        return "40001".equals(sqlState) || "40P01".equals(sqlState);
    }

    /** The single translation of SQL failures into the store's failure kinds. */
    static RuntimeException translate(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (e instanceof SQLTransientConnectionException || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLRecoverableException || e instanceof SQLTimeoutException
                || state.startsWith("08") || state.equals("57014") || state.equals("57P01") || state.equals("HYT00")
                || state.equals("70100")
                // H2's "IO Exception" (90028): over TCP, the link to the server broke mid-statement, as a cut
                // does; like 08xxx the outcome is unknown and the database unreachable, not a bad statement.
                || state.equals("90028")) {
            return new StoreUnavailableException("database unavailable: " + e.getMessage(), e);
        }
        return new IllegalStateException("database error (SQLState " + state + "): " + e.getMessage(), e);
    }

    @Override
    public void close() {
        StoreThreads.shutdown(executor);
    }
}
