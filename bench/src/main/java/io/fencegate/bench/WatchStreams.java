package io.fencegate.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * N SSE streams of one lease, each on its own HTTP/1.1 connection, all read by one selector
 * thread that stamps an end event ({@code expired} or {@code lost}) when its bytes arrive. Why
 * not the JDK HttpClient: on 2 CPUs, a thousand streams read through it got their end event p50
 * about 400 ms after the gateway saw the end, against about 30 ms read here, so it measured
 * itself more than the gateway. A selector costs a read and a line scan a stream.
 */
final class WatchStreams implements AutoCloseable {
    private final Selector selector;
    private final List<SocketChannel> channels = new ArrayList<>();
    private final CountDownLatch opened;
    /** When each stream read its end event (epoch ms), 0 until then. */
    final AtomicLongArray toldAt;
    /** The {@code endedAt} each end event carried: when the gateway saw the lease gone. */
    final AtomicLongArray endedAt;
    private final Thread reader;

    WatchStreams(URI gateway, String leaseId, int n) throws IOException {
        this.selector = Selector.open();
        this.opened = new CountDownLatch(n);
        this.toldAt = new AtomicLongArray(n);
        this.endedAt = new AtomicLongArray(n);
        byte[] request = ("GET /v1/leases/" + leaseId + "/events HTTP/1.1\r\nHost: " + gateway.getHost() + ":"
                + gateway.getPort() + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        try {
            for (int i = 0; i < n; i++) {
                SocketChannel channel = SocketChannel.open();
                channels.add(channel);
                channel.socket().connect(new InetSocketAddress(gateway.getHost(), gateway.getPort()), 10_000);
                ByteBuffer out = ByteBuffer.wrap(request);
                while (out.hasRemaining()) {
                    channel.write(out); // blocking, a few dozen bytes
                }
                channel.configureBlocking(false);
                channel.register(selector, SelectionKey.OP_READ, new Lines(i));
            }
        } catch (IOException e) {
            close();
            throw e;
        }
        reader = new Thread(this::read, "bench-watch-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Waits until every stream got its {@code : watching} comment. */
    boolean awaitOpen(long seconds) throws InterruptedException {
        return opened.await(seconds, java.util.concurrent.TimeUnit.SECONDS);
    }

    long openCount() {
        return toldAt.length() - opened.getCount();
    }

    private void read() {
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        try {
            while (selector.isOpen()) {
                selector.select(200);
                for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey key = it.next();
                    it.remove();
                    long now = System.currentTimeMillis(); // before the read: the bytes are here already
                    buffer.clear();
                    int read = ((SocketChannel) key.channel()).read(buffer);
                    if (read < 0) {
                        key.cancel();
                        continue;
                    }
                    ((Lines) key.attachment()).feed(new String(buffer.array(), 0, read, StandardCharsets.ISO_8859_1), now);
                }
            }
        } catch (IOException | java.nio.channels.ClosedSelectorException e) {
            // closed at the end of the run
        }
    }

    /** One stream's unparsed tail; chunk-size lines and HTTP headers are lines it ignores. */
    private final class Lines {
        private final int index;
        private final StringBuilder pending = new StringBuilder();
        private boolean open;
        private boolean ending;

        Lines(int index) {
            this.index = index;
        }

        void feed(String text, long now) {
            pending.append(text);
            int nl;
            while ((nl = pending.indexOf("\n")) >= 0) {
                String line = pending.substring(0, nl).strip();
                pending.delete(0, nl + 1);
                if (!open && line.startsWith(": watching")) {
                    open = true;
                    opened.countDown();
                } else if (line.equals("event: expired") || line.equals("event: lost")) {
                    toldAt.set(index, now);
                    ending = true;
                } else if (ending && line.startsWith("data: ")) {
                    ending = false;
                    int at = line.indexOf("\"endedAt\":");
                    if (at >= 0) {
                        int from = at + "\"endedAt\":".length();
                        int to = from;
                        while (to < line.length() && Character.isDigit(line.charAt(to))) {
                            to++;
                        }
                        endedAt.set(index, Long.parseLong(line.substring(from, to)));
                    }
                }
            }
        }
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // nothing left to do
        }
        for (SocketChannel c : channels) {
            try {
                c.close();
            } catch (IOException e) {
                // nothing left to do
            }
        }
    }
}
