package io.fencegate.demo;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.client.ReadOutcome;
import io.fencegate.client.WriteOutcome;
import io.fencegate.examples.support.RedisLock;
import io.fencegate.store.Executed;
import io.fencegate.store.GuardRule;
import io.fencegate.store.StatementResult;
import io.fencegate.store.jdbc.GuardRowTransactions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * One buyer process. It takes {@code RUN <mode> <sku> <ttlMs> <paymentMs>} lines on stdin and sells
 * that sku until it reads a stock of 0: take the lock, read the stock, take the payment (the
 * window where the demo freezes it), write the stock minus one. It prints what it does as
 * {@code EV <buyer> <event> ...} lines, which the demo counts; it never decides the outcome
 * itself, so a sale it believes in is counted even when the data says otherwise.
 */
public final class Buyer {
    private static final Duration LOCK_WAIT = Duration.ofSeconds(15);

    private final int id;
    private final FencegateClient gateway;
    private final HikariDataSource pool;
    private final DSLContext dsl;
    private final RedisLock redisLock;

    private Buyer(int id, String gatewayUri, String jdbcUrl, String user, String password, String redisUri) {
        this.id = id;
        this.gateway = FencegateClient.builder(gatewayUri).timeout(Duration.ofSeconds(10)).build();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(2);
        config.setPoolName("buyer-" + id);
        this.pool = new HikariDataSource(config);
        this.dsl = DSL.using(pool, Databases.dialectOf(jdbcUrl));
        this.redisLock = "-".equals(redisUri) ? null : new RedisLock(redisUri);
    }

    public static void main(String[] args) throws Exception {
        Buyer buyer = new Buyer(Integer.parseInt(args[0]), args[1], args[2], args[3], args[4], args[5]);
        buyer.dsl.fetchValue("SELECT 1"); // load the driver and jOOQ now, not inside the first lease
        buyer.emit("READY");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, UTF_8));
        for (String line; (line = in.readLine()) != null && !line.equals("QUIT"); ) {
            String[] run = line.split(" ");
            try {
                buyer.sell(Mode.valueOf(run[1]), run[2], Duration.ofMillis(Long.parseLong(run[3])), Long.parseLong(run[4]));
            } catch (Exception e) {
                buyer.emit("ERROR " + e.toString().replace('\n', ' '));
            }
            buyer.emit("DONE");
        }
        buyer.pool.close();
        if (buyer.redisLock != null) {
            buyer.redisLock.close();
        }
        System.exit(0);
    }

    /** Sells {@code sku} until the stock reads 0. */
    private void sell(Mode mode, String sku, Duration ttl, long paymentMs) throws Exception {
        String key = "stock/" + sku;
        String lock = Databases.GATEWAY_STORE + "/" + key;
        while (true) {
            Held held = acquire(mode, lock, ttl);
            if (held == null) {
                continue;
            }
            try {
                if (!saleUnder(mode, sku, key, held.token, paymentMs)) {
                    return;
                }
            } finally {
                held.release.run();
            }
        }
    }

    /** One sale under the lock; false once there is nothing left to sell. */
    private boolean saleUnder(Mode mode, String sku, String key, long token, long paymentMs) throws Exception {
        if (mode == Mode.JDBC_GUARD_ROW) {
            return guardRowSale(sku, key, token, paymentMs);
        }
        Integer qty = readStock(mode, sku, key, token);
        if (qty == null) {
            return true; // a fenced read refused: a newer holder has the item, our lease is gone
        }
        emit("READ " + token + " " + qty);
        if (qty == 0) {
            return false;
        }
        pay(token, paymentMs);
        boolean applied = writeStock(mode, sku, key, token, qty - 1);
        emit("WROTE " + token + (applied ? " applied" : " stale"));
        return true;
    }

    /** The payment step between read and write; the demo freezes a buyer here with SIGSTOP. */
    private void pay(long token, long paymentMs) throws InterruptedException {
        emit("PAY " + token);
        Thread.sleep(paymentMs);
    }

    private Integer readStock(Mode mode, String sku, String key, long token) throws SQLException {
        switch (mode) {
            case LOCK_ONLY:
                try (Connection c = pool.getConnection();
                     PreparedStatement select = c.prepareStatement("SELECT qty FROM demo_stock WHERE sku = ?")) {
                    select.setString(1, sku);
                    try (ResultSet rs = select.executeQuery()) {
                        rs.next();
                        return rs.getInt(1);
                    }
                }
            case TOKEN_WRITES:
                return quantity(gateway.get(Databases.GATEWAY_STORE, key));
            case GATEWAY_FENCED_READS:
                ReadOutcome fenced = gateway.get(Databases.GATEWAY_STORE, key, token);
                if (fenced instanceof io.fencegate.client.Stale) {
                    emit("READ_REFUSED " + token);
                    return null;
                }
                return quantity(fenced);
            default:
                throw new IllegalArgumentException(mode.name());
        }
    }

    private static int quantity(ReadOutcome read) {
        if (read instanceof ReadOutcome.Value value) {
            return Integer.parseInt(new String(value.bytes(), UTF_8));
        }
        throw new IllegalStateException("the stock item is missing: " + read);
    }

    private boolean writeStock(Mode mode, String sku, String key, long token, int qty) throws SQLException {
        if (mode == Mode.LOCK_ONLY) {
            // What a lock-only service does: it trusts the lock, so its write is unconditional.
            try (Connection c = pool.getConnection()) {
                try (PreparedStatement update = c.prepareStatement("UPDATE demo_stock SET qty = ? WHERE sku = ?")) {
                    update.setInt(1, qty);
                    update.setString(2, sku);
                    update.executeUpdate();
                }
                insertOrder(c, sku, token);
            }
            return true;
        }
        WriteOutcome put = gateway.put(Databases.GATEWAY_STORE, key, token, Integer.toString(qty).getBytes(UTF_8));
        return put.applied();
    }

    private void insertOrder(Connection c, String sku, long token) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO demo_orders (sku, buyer, token) VALUES (?, ?, ?)")) {
            insert.setString(1, sku);
            insert.setInt(2, id);
            insert.setLong(3, token);
            insert.executeUpdate();
        }
    }

    /** Mode 4: read, debit and order row in one transaction under the guard row of the stock's key. */
    private boolean guardRowSale(String sku, String key, long token, long paymentMs) throws Exception {
        pay(token, paymentMs);
        int[] seen = {-1};
        StatementResult result = GuardRowTransactions.of(dsl, GuardRule.STRICT).run(key, token, tx -> {
            int qty = ((Number) tx.fetchValue("SELECT qty FROM demo_stock WHERE sku = ?", sku)).intValue();
            seen[0] = qty;
            if (qty == 0) {
                return 0;
            }
            return tx.execute("UPDATE demo_stock SET qty = qty - 1 WHERE sku = ?", sku)
                    + tx.execute("INSERT INTO demo_orders (sku, buyer, token) VALUES (?, ?, ?)", sku, id, token);
        });
        if (result instanceof Executed executed) {
            emit("READ " + token + " " + seen[0]);
            if (executed.rows() == 0) {
                return false;
            }
            emit("WROTE " + token + " applied");
        } else {
            emit("WROTE " + token + " stale"); // nothing ran: a newer token holds the guard row
        }
        return true;
    }

    private record Held(long token, Runnable release) {}

    /** The lock: a gateway lease (its token used or ignored by the mode), or Redis SET NX PX in mode 1. */
    private Held acquire(Mode mode, String lock, Duration ttl) {
        if (mode == Mode.LOCK_ONLY && redisLock != null) {
            String value = redisLock.acquire(lock, ttl, LOCK_WAIT);
            if (value == null) {
                return null;
            }
            emit("LEASE 0");
            return new Held(0, () -> redisLock.release(lock, value));
        }
        Optional<Lease> lease = gateway.acquire(lock, ttl, LOCK_WAIT);
        if (lease.isEmpty()) {
            return null;
        }
        long token = lease.get().token();
        emit("LEASE " + token);
        // Mode 1 ignores the token; the data never sees it.
        long visible = mode == Mode.LOCK_ONLY ? 0 : token;
        return new Held(visible, () -> gateway.release(lease.get().leaseId()));
    }

    private void emit(String event) {
        System.out.println("EV " + id + " " + event);
        System.out.flush();
    }
}
