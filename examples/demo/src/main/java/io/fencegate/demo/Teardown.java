package io.fencegate.demo;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Everything the demo started, closed once in reverse order: at the end of a run, or from the
 * shutdown hook on Ctrl-C. The hook matters: a buyer frozen with SIGSTOP ignores every signal but
 * SIGKILL and SIGCONT until it is thawed, and would otherwise outlive the demo.
 */
final class Teardown {
    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private boolean closed;

    synchronized <T extends AutoCloseable> T add(T resource) {
        if (closed) {
            throw new IllegalStateException("the demo is shutting down");
        }
        started.push(resource);
        return resource;
    }

    synchronized void closeAll() {
        closed = true;
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (Exception e) {
                System.err.println("demo: cleanup: " + e);
            }
        }
    }
}
