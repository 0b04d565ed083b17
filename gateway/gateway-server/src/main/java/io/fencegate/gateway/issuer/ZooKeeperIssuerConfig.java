package io.fencegate.gateway.issuer;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.zookeeper.TokenMode;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.Settings;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@code type: zookeeper}: an ensemble through Curator. {@code tokenMode} zxid (default) or
 * cversion; durations as {@code 15s}; {@code forgetIdleLocksAfter} {@code 0s} keeps idle locks.
 */
public record ZooKeeperIssuerConfig(
        String connectString, String root, String tokenMode, String sessionTimeout, String operationTimeout,
        String forgetIdleLocksAfter) implements IssuerConfig {

    @Override
    public void validate() {
        Settings.required("connectString", connectString);
        checkOptions();
    }

    /** Every key but {@code connectString}, which the embedded issuer supplies itself. */
    void checkOptions() {
        tokenMode(tokenMode);
        Settings.duration("sessionTimeout", sessionTimeout, null);
        Settings.duration("operationTimeout", operationTimeout, null);
        Settings.duration("forgetIdleLocksAfter", forgetIdleLocksAfter, null);
    }

    @Override
    public Opened open(Consumer<AutoCloseable> closeOnStop) {
        return new Opened(build(), "ZooKeeper " + connectString);
    }

    LeaseIssuer build() {
        var b = ZooKeeperLeaseIssuer.builder().connectString(connectString).tokenMode(tokenMode(tokenMode));
        Optional.ofNullable(root).ifPresent(b::root);
        Duration session = Settings.duration("sessionTimeout", sessionTimeout, null);
        Optional.ofNullable(session).ifPresent(b::sessionTimeout);
        Duration op = Settings.duration("operationTimeout", operationTimeout, null);
        Optional.ofNullable(op).ifPresent(b::operationTimeout);
        Duration idle = Settings.duration("forgetIdleLocksAfter", forgetIdleLocksAfter, null);
        Optional.ofNullable(idle).ifPresent(b::forgetIdleLocksAfter);
        return b.build();
    }

    private static TokenMode tokenMode(String text) {
        if (text == null) {
            return TokenMode.ZXID;
        }
        try {
            return TokenMode.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException("tokenMode", "expected zxid or cversion, got '" + text + "'");
        }
    }
}
