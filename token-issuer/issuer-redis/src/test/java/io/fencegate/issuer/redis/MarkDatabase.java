package io.fencegate.issuer.redis;

import io.fencegate.schema.FencegateSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A schema (PostgreSQL) or database (MariaDB) of its own on the real server at 127.0.0.1, migrated
 * with fencegate's tables; dropped by {@link #close()}. {@link #dataSource()} answers a new data
 * source each time: as separate hosts would have.
 */
final class MarkDatabase implements AutoCloseable {
    enum Kind { POSTGRES, MARIADB }

    private final Kind kind;
    private final String name = "fg_mark_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    private MarkDatabase(Kind kind) {
        this.kind = kind;
    }

    static MarkDatabase create(Kind kind) throws SQLException {
        MarkDatabase db = new MarkDatabase(kind);
        db.admin(kind == Kind.POSTGRES ? "CREATE SCHEMA " + db.name : "CREATE DATABASE " + db.name);
        FencegateSchema.migrate(db.dataSource());
        return db;
    }

    DataSource dataSource() throws SQLException {
        if (kind == Kind.POSTGRES) {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setURL("jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + name + "&connectTimeout=5&socketTimeout=30");
            ds.setUser("postgres");
            return ds;
        }
        MariaDbDataSource ds = new MariaDbDataSource("jdbc:mariadb://127.0.0.1:3306/" + name
                + "?connectTimeout=5000&socketTimeout=30000");
        ds.setUser("root");
        ds.setPassword("");
        return ds;
    }

    private void admin(String sql) throws SQLException {
        String url = kind == Kind.POSTGRES ? "jdbc:postgresql://127.0.0.1:5432/test" : "jdbc:mariadb://127.0.0.1:3306/";
        try (Connection c = DriverManager.getConnection(url, kind == Kind.POSTGRES ? "postgres" : "root", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        admin(kind == Kind.POSTGRES ? "DROP SCHEMA IF EXISTS " + name + " CASCADE" : "DROP DATABASE IF EXISTS " + name);
    }
}
