package io.fencegate.gateway.hostile;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Slow bodies on raw sockets: each connection sends a request head, then one body byte every
 * {@code periodMs}, as a slowloris client would. What the gateway answered early (a 100 Continue,
 * a refusal) is read and kept per connection. {@link #close()} closes every connection.
 */
final class Trickle implements AutoCloseable {
    private final List<Socket> sockets = new ArrayList<>();
    private final List<StringBuilder> answers = new ArrayList<>();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "trickle");
        t.setDaemon(true);
        return t;
    });
    private final boolean chunked;

    private Trickle(boolean chunked) {
        this.chunked = chunked;
    }

    /**
     * Opens {@code connections} connections, each sending {@code head} (a request line and headers,
     * without the blank line) and then a byte (or a one-byte chunk, if {@code chunked}) every {@code periodMs}.
     */
    static Trickle open(URI base, int connections, String head, boolean chunked, long periodMs) throws IOException {
        return open(base, connections, head, chunked, periodMs, 0);
    }

    /**
     * ... {@code burst} body bytes at once (not chunked) before the trickle starts: a body well under
     * way, whose bytes the gateway has already stored somewhere.
     */
    static Trickle open(URI base, int connections, String head, long periodMs, int burst) throws IOException {
        return open(base, connections, head, false, periodMs, burst);
    }

    private static Trickle open(URI base, int connections, String head, boolean chunked, long periodMs, int burst)
            throws IOException {
        Trickle trickle = new Trickle(chunked);
        try {
            for (int i = 0; i < connections; i++) {
                trickle.connect(base, head, burst);
            }
        } catch (IOException e) {
            trickle.close();
            throw e;
        }
        trickle.ticker.scheduleAtFixedRate(trickle::tick, periodMs, periodMs, TimeUnit.MILLISECONDS);
        return trickle;
    }

    private void connect(URI base, String head, int burst) throws IOException {
        Socket socket = new Socket(base.getHost(), base.getPort());
        socket.setSoTimeout(0);
        OutputStream out = socket.getOutputStream();
        out.write((head + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(oneByte());
        out.flush();
        if (burst > 1) {
            // On a thread: a refused or paused body is not read, and the write would block.
            SteadyMix.daemon("trickle-burst", () -> {
                byte[] piece = new byte[64 * 1024];
                try {
                    for (int left = burst - 1; left > 0; left -= piece.length) {
                        out.write(piece, 0, Math.min(piece.length, left));
                    }
                    out.flush();
                } catch (IOException gone) {
                    // refused and closed by the gateway
                }
            });
        }
        StringBuilder answer = new StringBuilder();
        synchronized (this) {
            sockets.add(socket);
            answers.add(answer);
        }
        SteadyMix.daemon("trickle-reader", () -> {
            byte[] buf = new byte[4096];
            try (InputStream in = socket.getInputStream()) {
                for (int n; (n = in.read(buf)) > 0; ) {
                    synchronized (answer) {
                        answer.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
                    }
                }
            } catch (IOException closed) {
                // the connection was closed, by us or by the gateway
            }
        });
    }

    private byte[] oneByte() {
        return (chunked ? "1\r\nx\r\n" : "x").getBytes(StandardCharsets.ISO_8859_1);
    }

    private synchronized void tick() {
        for (Socket s : sockets) {
            if (!s.isClosed()) {
                try {
                    s.getOutputStream().write(oneByte());
                    s.getOutputStream().flush();
                } catch (IOException gone) {
                    // the gateway closed it: nothing more to trickle there
                }
            }
        }
    }

    /** What every connection has been answered so far, in opening order. */
    synchronized List<String> answers() {
        List<String> copy = new ArrayList<>();
        for (StringBuilder a : answers) {
            synchronized (a) {
                copy.add(a.toString());
            }
        }
        return copy;
    }

    @Override
    public synchronized void close() {
        ticker.shutdownNow();
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
