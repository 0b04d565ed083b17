package io.fencegate.issuer.zookeeper.provider;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.spi.IssuerSettings;
import io.fencegate.issuer.spi.OpenedIssuer;
import io.fencegate.issuer.zookeeper.TokenMode;
import io.fencegate.issuer.zookeeper.ZooKeeperLeaseIssuer;
import io.fencegate.spi.ConnectFailure;
import io.fencegate.spi.InvalidSettingException;
import io.fencegate.spi.Settings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code type: zookeeper}: an ensemble through Curator. {@code tokenMode} zxid (default) or
 * cversion; durations as {@code 15s}; {@code forgetIdleLocksAfter} {@code 0s} keeps idle locks;
 * {@code listingMaxBytes} the largest reply a lease listing takes (default 64 MiB).
 */
public record ZooKeeperIssuerConfig(
        String connectString, String root, String tokenMode, String sessionTimeout, String operationTimeout,
        String forgetIdleLocksAfter, Integer listingMaxBytes) implements IssuerSettings {
    private static final Duration CONNECT_CHECK = Duration.ofSeconds(3);

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
        if (listingMaxBytes != null && listingMaxBytes < ZooKeeperLeaseIssuer.MIN_LISTING_MAX_BYTES) {
            throw new InvalidSettingException("listingMaxBytes", "must be at least "
                    + ZooKeeperLeaseIssuer.MIN_LISTING_MAX_BYTES + " (ZooKeeper's default reply limit), was " + listingMaxBytes);
        }
    }

    /** The issuer on {@code connectString}, once a server there answers; it opens nothing else. */
    OpenedIssuer open() {
        checkReachable();
        return new OpenedIssuer(build(), "ZooKeeper " + connectString);
    }

    /**
     * Fails the start if no server of {@code connectString} accepts a TCP connection. The client
     * itself would keep retrying in the background while every lease call answers 503: at start,
     * that is far more likely a wrong address than an outage. One server that answers is enough.
     */
    private void checkReachable() {
        String servers = connectString.contains("/") ? connectString.substring(0, connectString.indexOf('/')) : connectString;
        Exception last = null;
        String notZooKeeper = null;
        for (String server : servers.split(",")) {
            String s = server.strip();
            int colon = s.lastIndexOf(':');
            String host = colon > 0 ? s.substring(0, colon) : s;
            int port;
            try {
                port = colon > 0 ? Integer.parseInt(s.substring(colon + 1)) : 2181;
            } catch (NumberFormatException e) {
                throw new InvalidSettingException("connectString", "expected host:port[,host:port...], got '" + connectString + "'");
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), (int) CONNECT_CHECK.toMillis());
                Optional<String> said = notZooKeeper(socket);
                if (said.isEmpty()) {
                    return;
                }
                notZooKeeper = s + " answered but is not ZooKeeper (it said '" + said.get() + "'): fix connectString";
            } catch (IOException e) {
                last = e;
            }
        }
        if (notZooKeeper != null) {
            throw new InvalidSettingException("connectString", notZooKeeper);
        }
        Exception failure = last;
        throw new InvalidSettingException("connectString", "cannot reach ZooKeeper at " + servers + " ("
                + ConnectFailure.reason(failure).orElse(String.valueOf(failure.getMessage())) + ")", failure);
    }

    /**
     * What a server said to ZooKeeper's {@code srvr} if it is plainly something else (Redis's
     * {@code -ERR}, MariaDB's greeting); empty if it answered as ZooKeeper ({@code Zookeeper
     * version}, or {@code srvr} not whitelisted) or said nothing in time: only a plain answer from
     * another server refuses the start.
     */
    private static Optional<String> notZooKeeper(Socket socket) {
        try {
            socket.setSoTimeout((int) CONNECT_CHECK.toMillis());
            socket.getOutputStream().write("srvr\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            byte[] buffer = new byte[256];
            int n = socket.getInputStream().read(buffer);
            if (n <= 0) {
                return Optional.empty();
            }
            String said = new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
            if (said.startsWith("Zookeeper version") || said.contains("not in the whitelist") || said.contains("not executed")) {
                return Optional.empty();
            }
            String printable = said.lines().findFirst().orElse("").replaceAll("[^\\x20-\\x7e]", "?").strip();
            return Optional.of(printable.length() > 80 ? printable.substring(0, 80) + "..." : printable);
        } catch (IOException e) {
            return Optional.empty();
        }
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
        Optional.ofNullable(listingMaxBytes).ifPresent(b::listingMaxBytes);
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
