package io.fencegate.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP proxy a test controls, to cut the link to a backend mid-run: {@link #cut()}
 * drops every open connection and refuses new ones (the port is closed, so connects fail at
 * once), {@link #restore()} listens again on the same port. Threads are daemons; {@link #close()}
 * stops everything.
 */
public final class TcpProxy implements AutoCloseable {

    private final InetSocketAddress target;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket server;
    private volatile int port;
    private volatile boolean closed;
    private volatile boolean stalled;

    private TcpProxy(InetSocketAddress target) {
        this.target = target;
    }

    /** Starts a proxy to {@code target} on a free loopback port. */
    public static TcpProxy start(InetSocketAddress target) throws IOException {
        TcpProxy proxy = new TcpProxy(target);
        proxy.listen(0);
        return proxy;
    }

    public static TcpProxy start(String host, int port) throws IOException {
        return start(new InetSocketAddress(host, port));
    }

    public int port() {
        return port;
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    /** Drops all connections and refuses new ones until {@link #restore()}. */
    public synchronized void cut() {
        closeQuietly(server);
        server = null;
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.clear();
    }

    /**
     * Keeps every connection open but forwards nothing, in either direction, and new connections
     * hang the same way: a frozen server or a silently dropping network, the case only timeouts
     * end. {@link #restore()} forwards again (what was held is delivered).
     */
    public void stall() {
        stalled = true;
    }

    /** Accepts connections again, on the same port, and ends a stall. */
    public synchronized void restore() throws IOException {
        stalled = false;
        if (server == null && !closed) {
            listen(port);
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        cut();
    }

    private synchronized void listen(int onPort) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 50);
        server = s;
        port = s.getLocalPort();
        Thread acceptor = new Thread(() -> acceptLoop(s), "tcp-proxy-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void acceptLoop(ServerSocket s) {
        while (!s.isClosed()) {
            Socket client;
            try {
                client = s.accept();
            } catch (IOException closedByCut) {
                return;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(target, 2000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            sockets.add(client);
            sockets.add(upstream);
            // A cut between accept and here would miss these two: re-check under the cut's lock.
            synchronized (this) {
                if (server != s) {
                    closeQuietly(client);
                    closeQuietly(upstream);
                    continue;
                }
            }
            pump(client, upstream);
            pump(upstream, client);
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    while (stalled && !from.isClosed()) {
                        Thread.sleep(10);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException endOfLink) {
                // one side closed or the link was cut: close both below
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "tcp-proxy-pump-" + port);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignore) {
            // closing during a cut: nothing to do
        }
    }
}
