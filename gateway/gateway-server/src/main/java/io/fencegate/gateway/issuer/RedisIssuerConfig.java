package io.fencegate.gateway.issuer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.JdbcTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.fencegate.issuer.redis.TokenHighWaterMark;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.store.spi.ConnectFailure;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.Settings;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * {@code type: redis}: one single-master Redis. The token high-water mark is either
 * {@code highWaterMarkFile} (one host) or {@code highWaterMarkUrl}/{@code User}/{@code Password},
 * a JDBC database every gateway on the key prefix shares.
 */
public record RedisIssuerConfig(
        String uri, String keyPrefix, String highWaterMarkFile, String highWaterMarkUrl, String highWaterMarkUser,
        String highWaterMarkPassword) implements IssuerConfig {
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

    @Override
    public Opened open(Consumer<AutoCloseable> closeOnStop) {
        String prefix = keyPrefix == null ? "fencegate:" : keyPrefix;
        RedisLeaseIssuer issuer;
        try {
            issuer = new RedisLeaseIssuer(new RedisIssuerOptions().uri(uri).keyPrefix(prefix)
                    .highWaterMark(highWaterMark(prefix, closeOnStop)));
        } catch (IssuerUnavailableException e) {
            throw ConnectFailure.reason(e)
                    .map(why -> new InvalidSettingException("uri", "cannot reach Redis at " + address() + " (" + why + ")", e))
                    .orElseThrow(() -> e);
        }
        return new Opened(issuer, "Redis " + redacted());
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
    private TokenHighWaterMark highWaterMark(String prefix, Consumer<AutoCloseable> closeOnStop) {
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
            throw new InvalidSettingException("highWaterMarkUrl", ConnectFailure.reason(e)
                    .map(why -> "cannot reach the database at " + highWaterMarkUrl + " (" + why + ")")
                    .orElse("cannot open " + highWaterMarkUrl + ": " + e.getMessage()), e);
        }
        closeOnStop.accept(dataSource);
        try {
            FencegateSchema.migrate(dataSource);
        } catch (RuntimeException e) {
            throw new InvalidSettingException("highWaterMarkUrl", "cannot migrate " + highWaterMarkUrl + ": " + e.getMessage(), e);
        }
        return new JdbcTokenHighWaterMark(dataSource, prefix, MARK_TIMEOUT);
    }
}
