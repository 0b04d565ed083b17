package io.fencegate.spring.boot;

import static io.fencegate.spring.boot.PropertyChecks.positive;
import static io.fencegate.spring.boot.PropertyChecks.required;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.redis.FileTokenHighWaterMark;
import io.fencegate.issuer.redis.JdbcTokenHighWaterMark;
import io.fencegate.issuer.redis.RedisIssuerOptions;
import io.fencegate.issuer.redis.RedisLeaseIssuer;
import io.fencegate.issuer.redis.TokenHighWaterMark;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * {@code fencegate.issuer.backend=redis}: one single-master Redis, with the durable token
 * high-water mark in a file or in the application's database (never in Redis itself: a Redis
 * that loses its data must not send tokens back).
 */
final class RedisIssuerBackend implements LeaseIssuerBackend {
    private static final String PREFIX = "fencegate.issuer.redis.";
    private final FencegateProperties.Redis settings;
    private final Supplier<DataSource> dataSource;

    RedisIssuerBackend(FencegateProperties.Redis settings, Supplier<DataSource> dataSource) {
        this.settings = settings;
        this.dataSource = dataSource;
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public LeaseIssuer open() {
        String uri = required(PREFIX + "uri", settings.getUri(), "when fencegate.issuer.backend=redis");
        RedisIssuerOptions options = new RedisIssuerOptions()
                .uri(uri)
                .keyPrefix(required(PREFIX + "key-prefix", settings.getKeyPrefix(), "(issuers sharing leases share it)"))
                .commandTimeout(positive(PREFIX + "command-timeout", settings.getCommandTimeout()))
                .highWaterMark(highWaterMark());
        try {
            return new RedisLeaseIssuer(options);
        } catch (IllegalArgumentException e) {
            throw PropertyChecks.invalid(PREFIX + "uri", uri, e);
        }
    }

    private TokenHighWaterMark highWaterMark() {
        boolean file = settings.getHighWaterMarkFile() != null;
        if (file == settings.isHighWaterMarkTable()) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + "high-water-mark-file",
                    settings.getHighWaterMarkFile(),
                    "set exactly one of " + PREFIX + "high-water-mark-file and " + PREFIX + "high-water-mark-table=true");
        }
        if (file) {
            return new FileTokenHighWaterMark(settings.getHighWaterMarkFile());
        }
        DataSource db = dataSource.get();
        if (db == null) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + "high-water-mark-table", true,
                    "needs exactly one DataSource in the application");
        }
        return new JdbcTokenHighWaterMark(db, settings.getKeyPrefix(), settings.getCommandTimeout().plusSeconds(1));
    }
}
