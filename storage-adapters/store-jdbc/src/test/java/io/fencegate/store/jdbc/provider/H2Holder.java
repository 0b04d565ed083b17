package io.fencegate.store.jdbc.provider;

import java.sql.Connection;
import java.sql.DriverManager;

/** Child-process half of {@link H2ClaimIT}: opens an H2 file database, says "open", holds it until stdin closes. */
public final class H2Holder {
    private H2Holder() {}

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0], "sa", "")) {
            c.createStatement().execute("CREATE TABLE IF NOT EXISTS held (x INT)");
            System.out.println("open");
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the database until the parent closes our stdin (or dies)
            }
        }
    }
}
