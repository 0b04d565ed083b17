package io.fencegate.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/** A {@link Buyer} JVM: its events go to one queue shared by all buyers; SIGSTOP and SIGCONT by pid. */
final class BuyerProcess implements AutoCloseable {
    /** One {@code EV} line of a buyer: its number, the event and its arguments. */
    record Event(int buyer, String kind, String[] args) {}

    final int id;
    private final Process process;
    private final PrintWriter commands;
    private final List<String> otherOutput = new ArrayList<>();

    private BuyerProcess(int id, Process process, BlockingQueue<Event> events) {
        this.id = id;
        this.process = process;
        this.commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread pump = new Thread(() -> pump(events), "demo-buyer-" + id);
        pump.setDaemon(true);
        pump.start();
    }

    static BuyerProcess start(int id, String gatewayUri, Databases db, String redisLock, BlockingQueue<Event> events)
            throws IOException {
        // Light JVMs: several start at once on a small machine, and none runs long.
        List<String> command = List.of(GatewayProcess.javaBin(), "-Xmx64m", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), Buyer.class.getName(),
                Integer.toString(id), gatewayUri, db.url, db.user, db.password, redisLock);
        return new BuyerProcess(id, new ProcessBuilder(command).redirectErrorStream(true).start(), events);
    }

    private void pump(BlockingQueue<Event> events) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                String[] parts = line.split(" ", 4);
                if (parts.length >= 3 && parts[0].equals("EV")) {
                    String[] args = parts.length == 4 ? parts[3].split(" ") : new String[0];
                    events.add(new Event(Integer.parseInt(parts[1]), parts[2], args));
                } else {
                    synchronized (otherOutput) {
                        otherOutput.add(line);
                    }
                }
            }
        } catch (IOException ignored) {
            // the buyer is gone; close() or the run's timeout reports it
        }
        events.add(new Event(id, "EXIT", new String[0]));
    }

    void run(Mode mode, String sku, long ttlMs, long paymentMs) {
        commands.println("RUN " + mode.name() + " " + sku + " " + ttlMs + " " + paymentMs);
    }

    /** A real stop-the-world pause: the kernel stops every thread of the buyer's JVM. */
    void freeze() throws IOException, InterruptedException {
        signal("-STOP");
    }

    void thaw() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed");
        }
    }

    String otherOutput() {
        synchronized (otherOutput) {
            return String.join("\n", otherOutput);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            if (process.isAlive()) {
                thaw(); // never leave a stopped JVM behind
                commands.println("QUIT");
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly(); // SIGKILL ends a stopped process too
            Thread.currentThread().interrupt();
        }
    }
}
