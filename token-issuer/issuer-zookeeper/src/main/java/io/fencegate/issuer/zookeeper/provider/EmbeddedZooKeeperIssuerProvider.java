package io.fencegate.issuer.zookeeper.provider;

import io.fencegate.issuer.spi.IssuerContext;
import io.fencegate.issuer.spi.IssuerProvider;
import io.fencegate.issuer.spi.IssuerType;
import io.fencegate.issuer.spi.OpenedIssuer;

/** {@code type: embedded-zookeeper}: ZooKeeper's own server in this process ({@link EmbeddedZooKeeperIssuerConfig}). */
public final class EmbeddedZooKeeperIssuerProvider implements IssuerProvider<EmbeddedZooKeeperIssuerConfig> {
    private static final IssuerType<EmbeddedZooKeeperIssuerConfig> TYPE =
            new IssuerType<>("embedded-zookeeper", EmbeddedZooKeeperIssuerConfig.class);

    @Override
    public IssuerType<EmbeddedZooKeeperIssuerConfig> issuerType() {
        return TYPE;
    }

    @Override
    public OpenedIssuer open(EmbeddedZooKeeperIssuerConfig settings, IssuerContext context) throws Exception {
        return settings.open(context);
    }
}
