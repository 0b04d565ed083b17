package io.fencegate.issuer.sql;

import io.fencegate.issuer.testkit.AcquireReleaseRate;

/**
 * {@link AcquireReleaseRate} on each database (a scratch schema/database, dropped), 1 and 8
 * threads. Run by hand; not part of the test suite. Args: [seconds per run, default 5]
 */
public final class SqlAcquireReleaseRate {

    private SqlAcquireReleaseRate() { }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 5;
        for (SqlTestDatabase.Kind kind : SqlTestDatabase.Kind.values()) {
            try (SqlTestDatabase db = SqlTestDatabase.create(kind); SqlLeaseIssuer issuer = db.issuer().poolSize(8).build()) {
                AcquireReleaseRate.print(kind.toString(), issuer, seconds, 1, 8);
            }
        }
    }
}
