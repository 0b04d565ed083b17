package io.fencegate.issuer.sql;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.AbstractLeaseIssuerContractTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The LeaseIssuer contract on one database of the test's own; each issuer has its own pool, as gateways would. */
abstract class SqlLeaseIssuerContract extends AbstractLeaseIssuerContractTest {

    private SqlTestDatabase db;
    private final java.util.List<SqlLeaseIssuer> created = new java.util.concurrent.CopyOnWriteArrayList<>();

    abstract SqlTestDatabase.Kind kind();

    /** Appended to the database's JDBC URL (none by default). */
    String urlOptions() {
        return "";
    }

    @BeforeEach
    void createDatabase() throws Exception {
        db = SqlTestDatabase.create(kind());
    }

    @AfterEach
    void dropDatabase() throws Exception {
        // Runs before the suite's own @AfterEach: close first (closing twice is a no-op), then drop.
        created.forEach(SqlLeaseIssuer::close);
        created.clear();
        if (db != null) {
            db.close();
        }
    }

    @Override
    protected LeaseIssuer newIssuer() {
        SqlLeaseIssuer issuer = db.issuer().jdbcUrl(db.url() + urlOptions()).build();
        created.add(issuer);
        return issuer;
    }
}
