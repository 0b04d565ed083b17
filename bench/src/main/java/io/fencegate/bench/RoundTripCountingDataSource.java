package io.fencegate.bench;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * A data source that counts what its connections send the database: each statement executed and
 * each commit or rollback is one round trip (the PostgreSQL driver sends BEGIN with a transaction's
 * first statement, in the same trip). Counted in the client, so a statement the driver batches is
 * still one. For {@link ReadWriteCost}, which runs by hand.
 */
final class RoundTripCountingDataSource {
    private final LongAdder trips = new LongAdder();
    private final DataSource target;

    RoundTripCountingDataSource(DataSource target) {
        this.target = target;
    }

    long trips() {
        return trips.sum();
    }

    DataSource dataSource() {
        return proxy(DataSource.class, target, (m, result) -> result instanceof Connection c
                ? proxy(Connection.class, c, this::connection) : result);
    }

    private Object connection(Method m, Object result) {
        if (m.getName().equals("commit") || m.getName().equals("rollback")) {
            trips.increment();
        }
        if (result instanceof CallableStatement s) {
            return proxy(CallableStatement.class, s, this::statement);
        }
        if (result instanceof PreparedStatement s) {
            return proxy(PreparedStatement.class, s, this::statement);
        }
        if (result instanceof Statement s) {
            return proxy(Statement.class, s, this::statement);
        }
        return result;
    }

    private Object statement(Method m, Object result) {
        if (m.getName().startsWith("execute")) {
            trips.increment();
        }
        return result;
    }

    @FunctionalInterface
    private interface After {
        Object apply(Method m, Object result);
    }

    /** {@code target} behind {@code type}, each call's answer passed through {@code after}; unwrap answers the target. */
    private static <T> T proxy(Class<T> type, Object target, After after) {
        InvocationHandler handler = (p, m, args) -> {
            if (m.getName().equals("unwrap") || m.getName().equals("isWrapperFor")) {
                return m.invoke(target, args);
            }
            Object result;
            try {
                result = m.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            return after.apply(m, result);
        };
        return type.cast(Proxy.newProxyInstance(RoundTripCountingDataSource.class.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
