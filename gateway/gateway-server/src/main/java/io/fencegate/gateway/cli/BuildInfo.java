package io.fencegate.gateway.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** The version and git commit the build wrote into {@code fencegate-build.properties}. */
final class BuildInfo implements IVersionProvider {
    private static final String RESOURCE = "/io/fencegate/gateway/fencegate-build.properties";

    /** {@code fencegate 0.1.0-SNAPSHOT (commit 3b7e1d8)}; "commit unknown" when built outside git. */
    static String describe() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // unreadable: the fallbacks below
        }
        String version = p.getProperty("version", "unknown");
        String commit = p.getProperty("commit", "").strip();
        return "fencegate " + version + " (commit " + (commit.isEmpty() ? "unknown" : commit) + ")";
    }

    @Override
    public String[] getVersion() {
        return new String[] {describe()};
    }
}
