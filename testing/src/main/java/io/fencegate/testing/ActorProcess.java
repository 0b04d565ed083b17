package io.fencegate.testing;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One actor of an example's story in a JVM of its own (a buyer, a teller, a worker): it takes
 * commands on its standard input, a line each, and tells what it did in {@code EV <actor> <kind>
 * [args...]} lines, which go to one queue shared by every actor of the story. Its pauses are real:
 * SIGSTOP and SIGCONT by pid. Subclasses name the commands their actor understands.
 */
public abstract class ActorProcess implements AutoCloseable {
    /** One {@code EV} line of an actor: its number, the event and its arguments; {@code EXIT} once its JVM ended. */
    public record Event(int actor, String kind, String[] args) {}

    // Light JVMs: several start at once on a small machine, and none runs long.
    private static final List<String> JVM_FLAGS = List.of("-Xmx64m", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:+UseSerialGC");

    public final int id;
    private final ChildProcess process;
    private final PrintWriter commands;

    /**
     * Starts {@code java mainClass id args...} on this JVM's classpath.
     *
     * @param name what the actor is ({@code worker}); with its number it names the process in logs
     */
    protected ActorProcess(String name, int id, Class<?> mainClass, List<String> args, BlockingQueue<Event> events)
            throws IOException {
        this.id = id;
        List<String> all = new ArrayList<>(List.of(Integer.toString(id)));
        all.addAll(args);
        this.process = ChildProcess.java(name + "-" + id, mainClass.getName(), JVM_FLAGS, all)
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
                        events.add(new Event(id, "EXIT", new String[0])); // close() or the story's timeout reports it
                    }
                }).start();
        this.commands = new PrintWriter(process.process().getOutputStream(), true, StandardCharsets.UTF_8);
    }

    /** One command line to the actor. */
    protected final void send(String command) {
        commands.println(command);
    }

    /** A real stop-the-world pause: the kernel stops every thread of the actor's JVM, its lease keep-alive too. */
    public final void freeze() throws IOException, InterruptedException {
        process.stop();
    }

    public final void thaw() throws IOException, InterruptedException {
        process.cont();
    }

    /** Everything it printed, its events too. */
    public final String output() {
        List<String> lines = process.lines();
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    /** What it printed besides its events. */
    public final String otherOutput() {
        List<String> lines = process.lines();
        synchronized (lines) {
            return String.join("\n", lines.stream().filter(l -> !l.startsWith("EV ")).toList());
        }
    }

    /** Asks it to quit (thawed first: never leave a stopped JVM behind); kill -9 after 5 s. */
    @Override
    public final void close() throws IOException {
        try {
            if (process.alive()) {
                thaw();
                send("QUIT");
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
