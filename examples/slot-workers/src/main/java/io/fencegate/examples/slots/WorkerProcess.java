package io.fencegate.examples.slots;

import io.fencegate.testing.ChildProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/** A {@link Worker} JVM: its events go to one queue shared by all workers; SIGSTOP and SIGCONT by pid. */
final class WorkerProcess implements AutoCloseable {
    /** One {@code EV} line of a worker: its number, the event and its arguments. */
    record Event(int worker, String kind, String[] args) {}

    final int id;
    private final ChildProcess process;
    private final PrintWriter commands;

    private WorkerProcess(int id, ChildProcess process) {
        this.id = id;
        this.process = process;
        this.commands = new PrintWriter(process.process().getOutputStream(), true, StandardCharsets.UTF_8);
    }

    /** {@code args}: everything after the worker's number, as {@link Worker#main} takes it. */
    static WorkerProcess start(int id, List<String> args, BlockingQueue<Event> events) throws IOException {
        // Light JVMs: several start at once on a small machine, and none runs long.
        List<String> flags = List.of("-Xmx64m", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:+UseSerialGC");
        List<String> all = new java.util.ArrayList<>(List.of(Integer.toString(id)));
        all.addAll(args);
        ChildProcess child = ChildProcess.java("worker-" + id, Worker.class.getName(), flags, all)
                .listener(new ChildProcess.Listener() {
                    @Override
                    public void line(String line) {
                        String[] parts = line.split(" ", 4);
                        if (parts.length >= 3 && parts[0].equals("EV")) {
                            String[] eventArgs = parts.length == 4 ? parts[3].split(" ") : new String[0];
                            events.add(new Event(Integer.parseInt(parts[1]), parts[2], eventArgs));
                        }
                    }

                    @Override
                    public void ended() {
                        events.add(new Event(id, "EXIT", new String[0]));
                    }
                }).start();
        return new WorkerProcess(id, child);
    }

    /** Where the gateway listens, once it does. */
    void gateway(String uri) {
        commands.println("GATEWAY " + uri);
    }

    /** Take a permit and work its slot. */
    void start() {
        commands.println("START");
    }

    /** Stop at the next job between its read and its write, and wait for {@link #go()}. */
    void hold() {
        commands.println("HOLD");
    }

    /** The held worker may write now. */
    void go() {
        commands.println("GO");
    }

    /** Finish the job in hand, release the permit and say STOPPED. */
    void stop() {
        commands.println("STOP");
    }

    /** A real stop-the-world pause: the kernel stops every thread of the worker's JVM, its lease keep-alive too. */
    void freeze() throws IOException, InterruptedException {
        process.stop();
    }

    void thaw() throws IOException, InterruptedException {
        process.cont();
    }

    /** Everything it printed, its events too. */
    String output() {
        List<String> lines = process.lines();
        synchronized (lines) {
            return String.join("\n", lines);
        }
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
