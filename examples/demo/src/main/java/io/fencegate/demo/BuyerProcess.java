package io.fencegate.demo;

import io.fencegate.testing.ChildProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/** A {@link Buyer} JVM: its events go to one queue shared by all buyers; SIGSTOP and SIGCONT by pid. */
final class BuyerProcess implements AutoCloseable {
    /** One {@code EV} line of a buyer: its number, the event and its arguments. */
    record Event(int buyer, String kind, String[] args) {}

    final int id;
    private final ChildProcess process;
    private final PrintWriter commands;

    private BuyerProcess(int id, ChildProcess process) {
        this.id = id;
        this.process = process;
        this.commands = new PrintWriter(process.process().getOutputStream(), true, StandardCharsets.UTF_8);
    }

    static BuyerProcess start(int id, String gatewayUri, Databases db, String redisLock, BlockingQueue<Event> events)
            throws IOException {
        // Light JVMs: several start at once on a small machine, and none runs long.
        List<String> flags = List.of("-Xmx64m", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:+UseSerialGC");
        ChildProcess child = ChildProcess.java("demo-buyer-" + id, Buyer.class.getName(), flags,
                List.of(Integer.toString(id), gatewayUri, db.url, db.user, db.password, redisLock))
                .listener(new ChildProcess.Listener() {
                    @Override
                    public void line(String line) {
                        String[] parts = line.split(" ", 4);
                        if (parts.length >= 3 && parts[0].equals("EV")) {
                            String[] args = parts.length == 4 ? parts[3].split(" ") : new String[0];
                            events.add(new Event(Integer.parseInt(parts[1]), parts[2], args));
                        }
                    }

                    @Override
                    public void ended() {
                        events.add(new Event(id, "EXIT", new String[0])); // close() or the run's timeout reports it
                    }
                }).start();
        return new BuyerProcess(id, child);
    }

    void run(Mode mode, String sku, long ttlMs, long paymentMs) {
        commands.println("RUN " + mode.name() + " " + sku + " " + ttlMs + " " + paymentMs);
    }

    /** A real stop-the-world pause: the kernel stops every thread of the buyer's JVM. */
    void freeze() throws IOException, InterruptedException {
        process.stop();
    }

    void thaw() throws IOException, InterruptedException {
        process.cont();
    }

    /** What it printed besides its events. */
    String otherOutput() {
        List<String> lines = process.lines();
        synchronized (lines) {
            return String.join("\n", lines.stream().filter(l -> !l.startsWith("EV ")).toList());
        }
    }

    @Override
    public void close() throws IOException {
        try {
            if (process.alive()) {
                thaw(); // never leave a stopped JVM behind
                commands.println("QUIT");
                if (!process.process().waitFor(5, TimeUnit.SECONDS)) {
                    process.kill9();
                }
            }
        } catch (InterruptedException e) {
            process.process().destroyForcibly(); // SIGKILL ends a stopped process too
            Thread.currentThread().interrupt();
        }
    }
}
