package io.fencegate.issuer.zookeeper.provider;

import io.fencegate.issuer.spi.IssuerContext;
import io.fencegate.issuer.spi.IssuerSettings;
import io.fencegate.issuer.spi.OpenedIssuer;
import io.fencegate.spi.ExclusivePath;
import io.fencegate.spi.Settings;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code type: embedded-zookeeper}: ZooKeeper's own embedded server in this process, data under
 * {@code dataDir}, for one gateway (the embedded default). The other keys are
 * {@link ZooKeeperIssuerConfig}'s, but for {@code connectString}.
 */
public record EmbeddedZooKeeperIssuerConfig(
        String dataDir, String root, String tokenMode, String sessionTimeout, String operationTimeout,
        String forgetIdleLocksAfter, Integer listingMaxBytes) implements IssuerSettings {

    /** An embedded server under {@code dataDir}, everything else default. */
    public EmbeddedZooKeeperIssuerConfig(String dataDir) {
        this(dataDir, null, null, null, null, null, null);
    }

    @Override
    public void validate() {
        Settings.required("dataDir", dataDir);
        on(null).checkOptions();
    }

    /**
     * The data directory: two servers on one would each write snapshots and logs over the other's,
     * and a restart would then read a history that skips acknowledged transactions (tokens go back).
     */
    @Override
    public List<ExclusivePath> exclusivePaths() {
        return List.of(ExclusivePath.directory("dataDir", "ZooKeeper data directory", Path.of(dataDir)));
    }

    /** Starts the server (closed after the issuer) and the issuer on it. */
    OpenedIssuer open(IssuerContext context) throws Exception {
        EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(Path.of(dataDir));
        context.closeOnStop(zk);
        return new OpenedIssuer(on(zk.connectString()).build(), "embedded ZooKeeper " + zk.connectString());
    }

    private ZooKeeperIssuerConfig on(String connectString) {
        return new ZooKeeperIssuerConfig(connectString, root, tokenMode, sessionTimeout, operationTimeout,
                forgetIdleLocksAfter, listingMaxBytes);
    }
}
