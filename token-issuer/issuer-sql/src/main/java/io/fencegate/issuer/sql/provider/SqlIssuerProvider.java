package io.fencegate.issuer.sql.provider;

import io.fencegate.issuer.spi.IssuerContext;
import io.fencegate.issuer.spi.IssuerProvider;
import io.fencegate.issuer.spi.IssuerType;
import io.fencegate.issuer.spi.OpenedIssuer;

/** {@code type: sql}: leases from PostgreSQL, MariaDB/MySQL or H2 alone ({@link SqlIssuerConfig}). */
public final class SqlIssuerProvider implements IssuerProvider<SqlIssuerConfig> {
    private static final IssuerType<SqlIssuerConfig> TYPE = new IssuerType<>("sql", SqlIssuerConfig.class);

    @Override
    public IssuerType<SqlIssuerConfig> issuerType() {
        return TYPE;
    }

    @Override
    public OpenedIssuer open(SqlIssuerConfig settings, IssuerContext context) {
        return settings.open();
    }
}
