package io.fencegate.issuer.backend;

import java.net.InetAddress;

/** The default name an issuer instance records on the leases it grants: {@code host/pid}. */
public final class InstanceNames {
    private InstanceNames() { }

    public static String defaultName() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "unknown-host";
        }
        return host + "/" + ProcessHandle.current().pid();
    }

    /** Names are shown to operators and stored in the backend: short, one line. */
    public static void check(String name) {
        if (name == null || name.isBlank() || name.length() > 200 || name.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw new IllegalArgumentException("instanceName must be 1 to 200 printable characters, was '" + name + "'");
        }
    }
}
