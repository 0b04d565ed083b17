package io.fencegate.examples.support;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Everything an example started, closed once in reverse order: at the end of a run, or from the
 * shutdown hook on Ctrl-C. The hook matters: a process frozen with SIGSTOP ignores every signal but
 * SIGKILL and SIGCONT until it is thawed, and would otherwise outlive the example.
 */
public final class Teardown {
    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private boolean closed;

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
