package io.fencegate.gateway.issuer;

import io.fencegate.store.spi.ExclusivePath;
import io.fencegate.store.spi.Settings;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code type: embedded-zookeeper}: ZooKeeper's own embedded server in this process, data under
 * {@code dataDir}, for one gateway (the embedded default). The other keys are
 * {@link ZooKeeperIssuerConfig}'s, but for {@code connectString}.
 */
public record EmbeddedZooKeeperIssuerConfig(
        String dataDir, String root, String tokenMode, String sessionTimeout, String operationTimeout,
        String forgetIdleLocksAfter) implements IssuerConfig {

    /** An embedded server under {@code dataDir}, everything else default. */
    public EmbeddedZooKeeperIssuerConfig(String dataDir) {
        this(dataDir, null, null, null, null, null);
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

    @Override
    public Opened open(Consumer<AutoCloseable> closeOnStop) throws Exception {
        EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(Path.of(dataDir));
        closeOnStop.accept(zk);
        return new Opened(on(zk.connectString()).build(), "embedded ZooKeeper " + zk.connectString());
    }

    private ZooKeeperIssuerConfig on(String connectString) {
        return new ZooKeeperIssuerConfig(connectString, root, tokenMode, sessionTimeout, operationTimeout,
                forgetIdleLocksAfter);
    }
}
