package io.fencegate.gateway.http;

import io.vertx.core.Vertx;
import java.time.Duration;

/**
 * A body's two deadlines, on its request's event loop: no piece for {@code idle}, or not whole
 * {@code total} after it was admitted. Either fires {@code expired} once, with the 408 to answer;
 * an admitted body otherwise holds its budget for as long as a client trickles it. One timer at a
 * time, re-armed from the time of the last piece, not one per piece.
 */
final class BodyDeadline {
    private final Vertx vertx;
    private final long idleNanos;
    private final long endNanos;
    private final java.util.function.Consumer<Problem> expired;
    private long lastPieceNanos;
    private long timer = -1;
    private boolean stopped;

    private BodyDeadline(Vertx vertx, Duration idle, Duration total, java.util.function.Consumer<Problem> expired) {
        this.vertx = vertx;
        this.idleNanos = idle.toNanos();
        this.lastPieceNanos = System.nanoTime();
        this.endNanos = lastPieceNanos + total.toNanos();
        this.expired = expired;
    }

    /** Starts both clocks now; call from the request's event loop. */
    static BodyDeadline start(Vertx vertx, Duration idle, Duration total, java.util.function.Consumer<Problem> expired) {
        BodyDeadline d = new BodyDeadline(vertx, idle, total, expired);
        d.arm();
        return d;
    }

    /** A piece of the body arrived. */
    void heard() {
        lastPieceNanos = System.nanoTime();
    }

    /** The body is whole, or the request failed otherwise. Idempotent. */
    void stop() {
        stopped = true;
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
    }

    private void arm() {
        long next = Math.min(lastPieceNanos + idleNanos, endNanos);
        timer = vertx.setTimer(Math.max(1, (next - System.nanoTime()) / 1_000_000 + 1), id -> check());
    }

    private void check() {
        timer = -1;
        if (stopped) {
            return;
        }
        long now = System.nanoTime();
        if (now - endNanos >= 0) {
            expire("the body was not whole within the body timeout");
        } else if (now - (lastPieceNanos + idleNanos) >= 0) {
            expire("no piece of the body arrived within the body idle timeout");
        } else {
            arm();
        }
    }

    private void expire(String detail) {
        stopped = true;
        expired.accept(new Problem(408, Problem.BODY_TIMEOUT, "Request Timeout", detail + "; send it faster"));
    }
}
