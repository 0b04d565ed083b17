package io.fencegate.issuer.redis.provider;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.ForeignMarkException;
import io.fencegate.issuer.redis.JdbcTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.fencegate.issuer.redis.TokenHighWaterMark;
import io.fencegate.issuer.spi.IssuerContext;
import io.fencegate.issuer.spi.IssuerSettings;
import io.fencegate.issuer.spi.OpenedIssuer;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.spi.ConnectFailure;
import io.fencegate.spi.InvalidSettingException;
import io.fencegate.spi.LoginRefusal;
import io.fencegate.spi.Settings;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code type: redis}: one single-master Redis. The token high-water mark is either
 * {@code highWaterMarkFile} (one host) or {@code highWaterMarkUrl}/{@code User}/{@code Password},
 * a JDBC database every gateway on the key prefix shares.
 */
public record RedisIssuerConfig(
        String uri, String keyPrefix, String highWaterMarkFile, String highWaterMarkUrl, String highWaterMarkUser,
        String highWaterMarkPassword) implements IssuerSettings {
    private static final Duration MARK_TIMEOUT = Duration.ofSeconds(5);

    @Override
    public void validate() {
        Settings.required("uri", uri);
        if ((highWaterMarkFile == null) == (highWaterMarkUrl == null)) {
            throw new InvalidSettingException("highWaterMarkFile",
                    "set either highWaterMarkFile (one host) or highWaterMarkUrl (a database all gateways share)");
        }
        if (highWaterMarkUrl != null && !highWaterMarkUrl.startsWith("jdbc:")) {
            throw new InvalidSettingException("highWaterMarkUrl", "expected a JDBC URL, got '" + highWaterMarkUrl + "'");
        }
    }

    /** The issuer on {@code uri}, its mark's pool (if any) registered to close after it. */
    OpenedIssuer open(IssuerContext context) {
        String prefix = keyPrefix == null ? "fencegate:" : keyPrefix;
        RedisLeaseIssuer issuer;
        try {
            issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(uri).keyPrefix(prefix)
                    .highWaterMark(highWaterMark(prefix, context)));
        } catch (ForeignMarkException e) {
            throw new InvalidSettingException(highWaterMarkFile != null ? "highWaterMarkFile" : "highWaterMarkUrl", e.getMessage(), e);
        } catch (IssuerUnavailableException e) {
            Optional<String> refused = refusal(e);
            if (refused.isPresent()) {
                throw new InvalidSettingException("uri", "Redis at " + address() + " " + refused.get(), e);
            }
            throw ConnectFailure.reason(e)
                    .map(why -> new InvalidSettingException("uri", "cannot reach Redis at " + address() + " (" + why + ")", e))
                    .orElseThrow(() -> e);
        }
        return new OpenedIssuer(issuer, "Redis " + redacted());
    }

    /**
     * What Redis refused, from its error word: a server that wants a password got none, or
     * refused the one (or the ACL user) the URI gave, or the ACL user may not run a command.
     */
    private static Optional<String> refusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (m.contains("NOAUTH")) {
                return Optional.of("wants a password (NOAUTH): put it in the URI, redis://:<password>@host:port");
            }
            if (m.contains("WRONGPASS")) {
                return Optional.of("refused the password (WRONGPASS: a wrong password, or no such ACL user): fix the"
                        + " URI's user and password, redis://[user]:<password>@host:port");
            }
            if (m.contains("NOPERM")) {
                return Optional.of("refused the URI's user a permission (" + m.substring(m.indexOf("NOPERM")).lines()
                        .findFirst().orElse("NOPERM") + "): allow it the issuer's commands (ACL SETUSER) or use another user");
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return Optional.empty();
    }

    /** host:port as configured, for messages; the whole (password-less) URI if it has no host. */
    private String address() {
        try {
            URI parsed = new URI(uri);
            if (parsed.getHost() != null) {
                return parsed.getHost() + ":" + (parsed.getPort() > 0 ? parsed.getPort() : 6379);
            }
        } catch (URISyntaxException e) {
            // not a URI: its redacted text below
        }
        return redacted();
    }

    private String redacted() {
        return uri.replaceAll("//[^@/]*@", "//***@");
    }

    /** A file, or a row in a shared database (migrated here; its pool closes after the issuer). */
    private TokenHighWaterMark highWaterMark(String prefix, IssuerContext context) {
        if (highWaterMarkFile != null) {
            return new FileTokenHighWaterMark(Path.of(highWaterMarkFile));
        }
        HikariConfig pool = new HikariConfig();
        pool.setPoolName("fencegate-token-mark");
        pool.setJdbcUrl(highWaterMarkUrl);
        pool.setUsername(highWaterMarkUser);
        pool.setPassword(highWaterMarkPassword == null ? "" : highWaterMarkPassword);
        pool.setMaximumPoolSize(2);
        pool.setConnectionTimeout(MARK_TIMEOUT.toMillis());
        pool.setInitializationFailTimeout(MARK_TIMEOUT.toMillis());
        HikariDataSource dataSource;
        try {
            dataSource = new HikariDataSource(pool);
        } catch (RuntimeException e) {
            Optional<LoginRefusal> refusal = LoginRefusal.of(e, highWaterMarkUrl, highWaterMarkUser);
            if (refusal.isPresent()) {
                throw refusal.get().at("highWaterMarkUser", "highWaterMarkPassword", "highWaterMarkUrl", e);
            }
            throw new InvalidSettingException("highWaterMarkUrl", ConnectFailure.reason(e)
                    .map(why -> "cannot reach the database at " + highWaterMarkUrl + " (" + why + ")")
                    .orElse("cannot open " + highWaterMarkUrl + ": " + e.getMessage()), e);
        }
        context.closeOnStop(dataSource);
        try {
            FencegateSchema.migrate(dataSource);
        } catch (RuntimeException e) {
            Optional<LoginRefusal> refusal = LoginRefusal.of(e, highWaterMarkUrl, highWaterMarkUser);
            if (refusal.isPresent()) {
                throw refusal.get().at("highWaterMarkUser", "highWaterMarkPassword", "highWaterMarkUrl", e);
            }
            throw new InvalidSettingException("highWaterMarkUrl", "cannot migrate " + highWaterMarkUrl + ": " + e.getMessage(), e);
        }
        return new JdbcTokenHighWaterMark(dataSource, prefix, MARK_TIMEOUT);
    }
}
