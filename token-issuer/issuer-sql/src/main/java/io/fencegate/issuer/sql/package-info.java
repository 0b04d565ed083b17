/**
 * A {@link io.fencegate.issuer.LeaseIssuer} on a SQL database alone (PostgreSQL, MariaDB/MySQL,
 * H2): {@link io.fencegate.issuer.sql.SqlLeaseIssuer#builder()}. Tables come from
 * {@link io.fencegate.issuer.sql.SqlIssuerSchema}.
 */
package io.fencegate.issuer.sql;
