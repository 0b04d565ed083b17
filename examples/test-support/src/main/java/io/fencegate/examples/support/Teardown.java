package io.fencegate.examples.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.stream.Stream;

/**
 * Everything an example started, closed once in reverse order: at the end of a run, or from the
 * shutdown hook on Ctrl-C. The hook matters: a process frozen with SIGSTOP ignores every signal but
 * SIGKILL and SIGCONT until it is thawed, and would otherwise outlive the example.
 */
public final class Teardown {
    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private boolean closed;

    /** An example's run: what it adds to its teardown is closed when it returns, throws, or is stopped with Ctrl-C. */
    public interface Run {
        int run(Teardown teardown) throws Exception;
    }

    /** Runs {@code run} with a teardown of its own and a shutdown hook named {@code name}; answers its exit code. */
    public static int around(String name, Run run) throws Exception {
        Teardown teardown = new Teardown();
        Thread hook = new Thread(teardown::closeAll, name + "-teardown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return run.run(teardown);
        } finally {
            teardown.closeAll();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook is running and finds nothing left to close
            }
        }
    }

    /** A new temporary folder, deleted with everything in it at teardown. */
    public Path temporaryFolder(String prefix) throws IOException {
        Path folder = Files.createTempDirectory(prefix);
        add(() -> deleteTree(folder));
        return folder;
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    public synchronized <T extends AutoCloseable> T add(T resource) {
        if (closed) {
            throw new IllegalStateException("shutting down");
        }
        started.push(resource);
        return resource;
    }

    public synchronized void closeAll() {
        closed = true;
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (Exception e) {
                System.err.println("cleanup: " + e);
            }
        }
    }
}
