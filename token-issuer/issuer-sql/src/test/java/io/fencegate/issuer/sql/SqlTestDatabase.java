package io.fencegate.issuer.sql;

import io.fencegate.testing.ScratchDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;

/**
 * A database of the issuer tests' own: a Postgres schema or MariaDB database on the shared servers
 * ({@link ScratchDatabase}, dropped by {@link #close()}), or a named in-memory H2 database that
 * lives until close.
 */
final class SqlTestDatabase implements AutoCloseable {
    enum Kind { POSTGRES, MARIADB, H2 }

    final Kind kind;
    private final ScratchDatabase scratch;
    private final String h2Url;
    private final Connection h2Keeper;

    private SqlTestDatabase(Kind kind, ScratchDatabase scratch, String h2Url, Connection h2Keeper) {
        this.kind = kind;
        this.scratch = scratch;
        this.h2Url = h2Url;
        this.h2Keeper = h2Keeper;
    }

    static SqlTestDatabase create(Kind kind) throws SQLException {
        if (kind == Kind.H2) {
            String url = "jdbc:h2:mem:fg_issuer_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
            return new SqlTestDatabase(kind, null, url, DriverManager.getConnection(url, "sa", ""));
        }
        return new SqlTestDatabase(kind, ScratchDatabase.create(ScratchDatabase.Kind.valueOf(kind.name()), "fg_issuer_"), null, null);
    }

    String url() {
        return scratch != null ? scratch.url() : h2Url;
    }

    /** The Postgres schema's or MariaDB database's name. */
    String schema() {
        return scratch.name();
    }

    String user() {
        return scratch != null ? scratch.user() : "sa";
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), user(), "");
    }

    /** An issuer with a pool of its own, as a separate gateway would have. */
    SqlLeaseIssuerBuilder issuer() {
        return SqlLeaseIssuer.builder().jdbcUrl(url()).user(user()).password("").poolSize(4);
    }

    @Override
    public void close() throws SQLException {
        if (scratch != null) {
            scratch.close();
        } else {
            h2Keeper.close();
        }
    }
}
