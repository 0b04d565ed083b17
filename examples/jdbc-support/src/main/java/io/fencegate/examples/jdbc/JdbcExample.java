package io.fencegate.examples.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import java.time.Duration;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The command line every jOOQ example shares, {@code <jdbc-url> <user> <zookeeper-connect-string>}:
 * a small pool on the application's Postgres, a jOOQ DSL over it and a ZooKeeper issuer, handed to
 * the example; the process exits 0 when the example's outcome is the one it shows, else 1.
 */
public final class JdbcExample {

    /** What an example does with the application's database and an issuer; true if it showed what it should. */
    @FunctionalInterface
    public interface Body {
        boolean run(DataSource pool, DSLContext dsl, LeaseIssuer issuer) throws Exception;
    }

    private JdbcExample() {}

    public static void run(String program, String[] args, Body body) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: " + program + " <jdbc-url> <user> <zookeeper-connect-string>");
            System.exit(2);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setUsername(args[1]);
        config.setMaximumPoolSize(2);
        try (HikariDataSource pool = new HikariDataSource(config);
             LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(args[2])
                     .operationTimeout(Duration.ofSeconds(5)).build()) {
            boolean shown = body.run(pool, DSL.using(pool, SQLDialect.POSTGRES), issuer);
            System.exit(shown ? 0 : 1);
        }
    }
}
