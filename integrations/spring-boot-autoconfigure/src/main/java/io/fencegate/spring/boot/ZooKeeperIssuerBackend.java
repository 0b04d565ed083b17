package io.fencegate.spring.boot;

import static io.fencegate.spring.boot.PropertyChecks.positive;
import static io.fencegate.spring.boot.PropertyChecks.required;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.TokenMode;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;

/** {@code fencegate.issuer.backend=zookeeper}: an issuer with its own Curator client. */
final class ZooKeeperIssuerBackend implements LeaseIssuerBackend {
    private static final String PREFIX = "fencegate.issuer.zookeeper.";
    private final FencegateProperties.ZooKeeper settings;

    ZooKeeperIssuerBackend(FencegateProperties.ZooKeeper settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public LeaseIssuer open() {
        String connect = required(PREFIX + "connect-string", settings.getConnectString(), "when fencegate.issuer.backend=zookeeper");
        ZooKeeperLeaseIssuer.Builder builder = ZooKeeperLeaseIssuer.builder()
                .connectString(connect)
                .tokenMode(TokenMode.valueOf(settings.getTokenMode().name()))
                .sessionTimeout(positive(PREFIX + "session-timeout", settings.getSessionTimeout()))
                .operationTimeout(positive(PREFIX + "operation-timeout", settings.getOperationTimeout()));
        try {
            builder.root(settings.getRoot());
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw PropertyChecks.invalid(PREFIX + "root", settings.getRoot(), e);
        }
    }
}
