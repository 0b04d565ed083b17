package io.fencegate.gateway.cli;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * The address {@code serve} will listen on, probed before any backend is opened: a port already in
 * use fails in milliseconds instead of after every ZooKeeper, Redis and database connection is up.
 * A probe and the real bind race (another process may take the port in between), so the real
 * bind's failure is worded by {@link #cannotListen} too. Binding the server first and answering 503
 * until the backends are ready would close that race, but it changes what a caller sees while a
 * gateway starts (a load balancer would route to a gateway that cannot serve); the probe keeps
 * "listening" meaning "ready".
 */
final class ListenAddress {
    private final String host;
    private final int port;
    private final boolean portFromFlag;

    ListenAddress(String host, int port, boolean portFromFlag) {
        this.host = host;
        this.port = port;
        this.portFromFlag = portFromFlag;
    }

    /** Throws the worded failure if {@code host:port} cannot be bound now; port 0 always can. */
    void probe() {
        if (port == 0) {
            return;
        }
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true); // as Vert.x binds: a port in TIME_WAIT is free
            socket.bind(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw cannotListen(e);
        }
    }

    /** {@code failure}, a bind failure, as a message naming the address and the key that sets it. */
    IllegalStateException cannotListen(Throwable failure) {
        String reason = String.valueOf(failure.getMessage());
        String address = host + ":" + port;
        String portKey = portFromFlag ? "--port" : "server.port (or --port)";
        if (reason.contains("Address already in use")) {
            return new IllegalStateException("cannot listen on " + address + ": the port is already in use"
                    + " (is another gateway running?); choose another with " + portKey, failure);
        }
        if (reason.contains("Permission denied")) {
            return new IllegalStateException("cannot listen on " + address + ": ports below 1024 need privileges;"
                    + " choose another with " + portKey, failure);
        }
        return new IllegalStateException("cannot listen on " + address + " (" + reason + "); check server.host"
                + " (or --host) and " + portKey, failure);
    }

    /** Whether {@code failure} (or a cause) is a failure to bind the listening socket. */
    static boolean isBindFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof BindException || String.valueOf(t.getMessage()).contains("Address already in use")) {
                return true;
            }
        }
        return false;
    }
}
