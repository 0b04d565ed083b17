package io.fencegate.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.schema.FencegateSchema;
import java.io.IOException;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import org.h2.tools.Server;
import org.jooq.SQLDialect;

/**
 * The shop's database, which modes 1 and 4 use directly: a stock table and an orders table, plus
 * fencegate's tables for mode 4's guard rows. On the embedded default it is an in-memory H2 in
 * server mode, so every buyer process reaches the same rows; otherwise a schema (Postgres) or a
 * database (MariaDB) of its own on the real server, dropped at the end. The gateway's store for
 * modes 2 and 3 gets a second one beside it ({@link #gatewayUrl}), never the same place.
 */
final class Databases implements AutoCloseable {
    /** The gateway store the buyers sell through in modes 2 and 3. */
    static final String GATEWAY_STORE = "main";
    /** Where {@code --store postgres} and {@code --store mariadb} go without {@code --jdbc-url}. */
    static final String POSTGRES_DEFAULT = "jdbc:postgresql://127.0.0.1:5432/test";
    static final String MARIADB_DEFAULT = "jdbc:mariadb://127.0.0.1:3306/test";

    final String kind;
    final String url;
    final String user;
    final String password;
    /** JDBC URL of the gateway's store, or null for the embedded default's own H2. */
    final String gatewayUrl;
    final HikariDataSource pool;
    private final Server h2Server;
    private final String dropName;
    /** The URL the demo creates and drops its schemas or databases through (postgres, mariadb). */
    private final String adminUrl;

    private Databases(String kind, String url, String user, String password, String gatewayUrl,
                      Server h2Server, String dropName, String adminUrl) {
        this.adminUrl = adminUrl;
        this.kind = kind;
        this.url = url;
        this.user = user;
        this.password = password;
        this.gatewayUrl = gatewayUrl;
        this.h2Server = h2Server;
        this.dropName = dropName;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(2);
        config.setPoolName("demo");
        this.pool = new HikariDataSource(config);
    }

    static SQLDialect dialectOf(String jdbcUrl) {
        if (jdbcUrl.startsWith("jdbc:h2:")) {
            return SQLDialect.H2;
        }
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            return SQLDialect.POSTGRES;
        }
        if (jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:")) {
            return SQLDialect.MARIADB;
        }
        throw new IllegalArgumentException("no SQL dialect for " + jdbcUrl);
    }

    /**
     * {@code store} is h2, postgres or mariadb; {@code gatewayH2} is where a configured gateway keeps
     * an H2 store; {@code jdbcUrl} (null: the default for the store), {@code user} (null: postgres or
     * root) and {@code password} name the server the demo makes its schemas or databases on.
     */
    static Databases open(String store, String gatewayH2, String jdbcUrl, String user, String password)
            throws SQLException, IOException {
        String name = "fg_demo_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
        Databases db;
        switch (store) {
            case "h2" -> {
                int port = freePort();
                // -ifNotExists: H2 2.x creates no database over TCP without it; the database is in memory.
                Server server = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists").start();
                db = new Databases("H2 (in memory, server mode)",
                        "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", "",
                        "jdbc:h2:" + gatewayH2, server, null, null);
            }
            case "postgres" -> {
                String admin = jdbcUrl != null ? jdbcUrl : POSTGRES_DEFAULT;
                String u = user != null ? user : "postgres";
                run(admin, u, password, "CREATE SCHEMA " + name, "CREATE SCHEMA " + name + "_gw");
                db = new Databases("PostgreSQL " + where(admin) + ", schema " + name,
                        withParameter(admin, "currentSchema=" + name), u, password,
                        withParameter(admin, "currentSchema=" + name + "_gw"), null, name, admin);
            }
            case "mariadb" -> {
                String admin = jdbcUrl != null ? jdbcUrl : MARIADB_DEFAULT;
                String u = user != null ? user : "root";
                run(admin, u, password, "CREATE DATABASE " + name, "CREATE DATABASE " + name + "_gw");
                db = new Databases("MariaDB " + where(admin) + ", database " + name,
                        withDatabase(admin, name), u, password, withDatabase(admin, name + "_gw"), null, name, admin);
            }
            default -> throw new IllegalArgumentException("--store: expected h2, postgres or mariadb, got '" + store + "'");
        }
        try {
            db.createTables();
        } catch (SQLException | RuntimeException e) {
            db.close(); // drops what it created
            throw e;
        }
        return db;
    }

    private void createTables() throws SQLException {
        FencegateSchema.migrate(pool); // fencegate_fence, for mode 4's guard rows
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE demo_stock (sku VARCHAR(100) PRIMARY KEY, qty INT NOT NULL)");
            s.execute("CREATE TABLE demo_orders (sku VARCHAR(100) NOT NULL, buyer INT NOT NULL, token BIGINT NOT NULL)");
        }
    }

    void stock(String sku, int qty) throws SQLException {
        try (Connection c = pool.getConnection(); var insert = c.prepareStatement("INSERT INTO demo_stock (sku, qty) VALUES (?, ?)")) {
            insert.setString(1, sku);
            insert.setInt(2, qty);
            insert.executeUpdate();
        }
    }

    int stockLeft(String sku) throws SQLException {
        return intOf("SELECT qty FROM demo_stock WHERE sku = ?", sku);
    }

    int orders(String sku) throws SQLException {
        return intOf("SELECT COUNT(*) FROM demo_orders WHERE sku = ?", sku);
    }

    /** The one number {@code sql} answers for {@code sku}. */
    private int intOf(String sql, String sku) throws SQLException {
        try (Connection c = pool.getConnection(); var select = c.prepareStatement(sql)) {
            select.setString(1, sku);
            try (var rs = select.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** host:port/database of a JDBC URL, without its parameters (which may hold a password). */
    static String where(String jdbcUrl) {
        String rest = jdbcUrl.substring(jdbcUrl.indexOf("//") + 2);
        int params = rest.indexOf('?');
        return params < 0 ? rest : rest.substring(0, params);
    }

    /** {@code jdbcUrl} with one more query parameter. */
    static String withParameter(String jdbcUrl, String parameter) {
        return jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + parameter;
    }

    /** {@code jdbcUrl} (jdbc:mariadb://host:port[/db][?params]) naming database {@code name} instead. */
    static String withDatabase(String jdbcUrl, String name) {
        int hostStart = jdbcUrl.indexOf("//") + 2;
        int params = jdbcUrl.indexOf('?', hostStart);
        String query = params < 0 ? "" : jdbcUrl.substring(params);
        String head = params < 0 ? jdbcUrl : jdbcUrl.substring(0, params);
        int slash = head.indexOf('/', hostStart);
        return (slash < 0 ? head : head.substring(0, slash)) + "/" + name + query;
    }

    private static void run(String url, String user, String password, String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    @Override
    public void close() throws SQLException {
        pool.close();
        if (h2Server != null) {
            h2Server.stop();
        }
        if (dropName != null && url.startsWith("jdbc:postgresql:")) {
            run(adminUrl, user, password, "DROP SCHEMA " + dropName + " CASCADE", "DROP SCHEMA " + dropName + "_gw CASCADE");
        } else if (dropName != null) {
            run(adminUrl, user, password, "DROP DATABASE " + dropName, "DROP DATABASE " + dropName + "_gw");
        }
    }
}
