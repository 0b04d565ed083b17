package io.fencegate.check.nemesis;

import io.fencegate.testing.ChildProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A JVM the harness starts on its own classpath (a gateway, a ZooKeeper server, a checker client):
 * light flags, since many run at once on a small machine, and its log beside the run's results.
 */
final class HarnessJvm {
    private static final List<String> FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k");

    private HarnessJvm() {
    }

    static ChildProcess start(String name, Path logDir, String mainClass, List<String> jvmArgs, List<String> args)
            throws IOException {
        return start(name, logDir, mainClass, jvmArgs, args, Map.of());
    }

    /** The same, with {@code env} added to its environment. */
    static ChildProcess start(String name, Path logDir, String mainClass, List<String> jvmArgs, List<String> args,
            Map<String, String> env) throws IOException {
        List<String> flags = new ArrayList<>(FLAGS);
        flags.addAll(jvmArgs);
        return ChildProcess.java(name, mainClass, flags, args).logTo(logDir.resolve(name + ".log")).env(env).start();
    }
}
