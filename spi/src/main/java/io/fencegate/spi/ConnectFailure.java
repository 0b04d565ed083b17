package io.fencegate.spi;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * Whether a backend failed to open because nothing answered at its address, and why, in a few
 * words: drivers word it each their own way, often with an internal rendering of the address
 * ({@code 127.0.0.1/<unresolved>:6390}) that matches nothing the user wrote. The caller names the
 * key and the address as configured.
 */
public final class ConnectFailure {
    private ConnectFailure() {}

    /** {@code "connection refused"}, {@code "unknown host db1"}, ... if {@code failure} is one, else empty. */
    public static Optional<String> reason(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof UnknownHostException) {
                return Optional.of("unknown host " + t.getMessage());
            }
            if (t instanceof NoRouteToHostException) {
                return Optional.of("no route to host");
            }
            if (t instanceof ConnectException) {
                String message = String.valueOf(t.getMessage());
                return Optional.of(message.contains("refused") ? "connection refused"
                        : message.contains("timed out") ? "connect timed out" : "cannot connect");
            }
            if (t instanceof SocketTimeoutException || t.getClass().getSimpleName().equals("ConnectTimeoutException")) {
                return Optional.of("connect timed out");
            }
        }
        return Optional.empty();
    }
}
