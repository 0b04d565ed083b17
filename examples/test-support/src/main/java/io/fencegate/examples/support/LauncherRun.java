package io.fencegate.examples.support;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One command of the checkout's {@code ./fencegate} launcher, run as a user runs it (from a folder of
 * the test's, none of the caller's {@code FENCEGATE_*} variables, on the classes the build has just
 * made), to its end: its exit code and everything it printed.
 */
public record LauncherRun(int exit, String output) {

    /**
     * {@code ./fencegate command flags...} in {@code dir}, with C1 only (a short run: C2 would only cost
     * CPU). Its output is read as it comes, so a run that does not finish in {@code timeoutSeconds}
     * still shows how far it got; it then gets SIGTERM, which its shutdown hook answers by thawing
     * and stopping what it started.
     */
    public static LauncherRun run(Path dir, long timeoutSeconds, String command, String... flags)
            throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of(repoRoot().resolve("fencegate").toString(), command));
        line.addAll(List.of(flags));
        ProcessBuilder builder = new ProcessBuilder(line).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().keySet().removeIf(name -> name.startsWith("FENCEGATE_"));
        builder.environment().put("FENCEGATE_NO_BUILD", "1");
        builder.environment().put("FENCEGATE_JAVA_OPTS", "-XX:TieredStopAtLevel=1");
        Process process = builder.start();
        StringBuffer output = new StringBuffer();
        Thread reader = new Thread(() -> {
            try {
                process.getInputStream().transferTo(new OutputStream() {
                    @Override
                    public void write(int b) {
                        output.append((char) b);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) {
                        output.append(new String(b, off, len, StandardCharsets.UTF_8));
                    }
                });
            } catch (IOException ended) {
                // the process is gone
            }
        });
        reader.start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroy();
            process.waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError("./fencegate " + command + " did not finish in " + timeoutSeconds + " s; it printed:\n" + output);
        }
        reader.join(10_000);
        return new LauncherRun(process.exitValue(), output.toString());
    }

    /** The checkout's root: the nearest folder up from here that holds the launcher. */
    public static Path repoRoot() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("fencegate")) && Files.isRegularFile(d.resolve("pom.xml"))) {
                return d;
            }
        }
        throw new IllegalStateException("no ./fencegate launcher above " + Path.of("").toAbsolutePath());
    }
}
