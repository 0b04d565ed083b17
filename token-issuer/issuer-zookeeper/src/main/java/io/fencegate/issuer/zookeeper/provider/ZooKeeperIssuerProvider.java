package io.fencegate.issuer.zookeeper.provider;

import io.fencegate.issuer.spi.IssuerContext;
import io.fencegate.issuer.spi.IssuerProvider;
import io.fencegate.issuer.spi.IssuerType;
import io.fencegate.issuer.spi.OpenedIssuer;

/** {@code type: zookeeper}: an ensemble the issuer connects to ({@link ZooKeeperIssuerConfig}). */
public final class ZooKeeperIssuerProvider implements IssuerProvider<ZooKeeperIssuerConfig> {
    private static final IssuerType<ZooKeeperIssuerConfig> TYPE = new IssuerType<>("zookeeper", ZooKeeperIssuerConfig.class);

    @Override
    public IssuerType<ZooKeeperIssuerConfig> issuerType() {
        return TYPE;
    }

    @Override
    public OpenedIssuer open(ZooKeeperIssuerConfig settings, IssuerContext context) {
        return settings.open();
    }
}
