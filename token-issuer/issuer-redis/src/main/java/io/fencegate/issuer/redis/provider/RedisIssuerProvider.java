package io.fencegate.issuer.redis.provider;

import io.fencegate.issuer.spi.IssuerContext;
import io.fencegate.issuer.spi.IssuerProvider;
import io.fencegate.issuer.spi.IssuerType;
import io.fencegate.issuer.spi.OpenedIssuer;

/** {@code type: redis}: one single-master Redis and a durable high-water mark ({@link RedisIssuerConfig}). */
public final class RedisIssuerProvider implements IssuerProvider<RedisIssuerConfig> {
    private static final IssuerType<RedisIssuerConfig> TYPE = new IssuerType<>("redis", RedisIssuerConfig.class);

    @Override
    public IssuerType<RedisIssuerConfig> issuerType() {
        return TYPE;
    }

    @Override
    public OpenedIssuer open(RedisIssuerConfig settings, IssuerContext context) {
        return settings.open(context);
    }
}
