package io.fencegate.issuer.sql.provider;

import io.fencegate.issuer.spi.IssuerSettings;
import io.fencegate.issuer.spi.OpenedIssuer;
import io.fencegate.issuer.sql.SqlLeaseIssuer;
import io.fencegate.spi.InvalidSettingException;
import io.fencegate.spi.Settings;
import java.time.Duration;
import java.util.Locale;

/**
 * {@code type: sql}: leases from PostgreSQL, MariaDB/MySQL or H2 alone ({@code url}, {@code user},
 * {@code password}). {@code notifications: false} turns PostgreSQL's LISTEN off (behind pgbouncer
 * in transaction mode); {@code statementTimeout} bounds each statement (default 5s).
 */
public record SqlIssuerConfig(String url, String user, String password, String notifications, String statementTimeout)
        implements IssuerSettings {

    @Override
    public void validate() {
        Settings.required("url", url);
        if (!url.startsWith("jdbc:")) {
            throw new InvalidSettingException("url", "expected a JDBC URL, got '" + url + "'");
        }
        notificationsOn();
        Duration timeout = Settings.duration("statementTimeout", statementTimeout, Duration.ofSeconds(5));
        if (timeout.toSeconds() < 1) {
            throw new InvalidSettingException("statementTimeout", "must be at least 1s, got '" + statementTimeout + "'");
        }
    }

    private boolean notificationsOn() {
        if (notifications == null) {
            return true;
        }
        return switch (notifications.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new InvalidSettingException("notifications", "expected true or false, got '" + notifications + "'");
        };
    }

    /** The issuer on {@code url}; it owns its connections. */
    OpenedIssuer open() {
        SqlLeaseIssuer issuer = SqlLeaseIssuer.builder().jdbcUrl(url).user(user).password(password)
                .notifications(notificationsOn())
                .statementTimeout(Settings.duration("statementTimeout", statementTimeout, Duration.ofSeconds(5)))
                .build();
        return new OpenedIssuer(issuer, "SQL " + url.replaceAll("(?i)(password=)[^&;]*", "$1***"));
    }
}
