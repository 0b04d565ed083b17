package io.fencegate.gateway.cli;

import io.fencegate.gateway.auth.ApiKeyHasher;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * {@code fencegate serve | hash-key | version}: the command line behind the {@code ./fencegate}
 * launcher. {@code demo}, {@code transfer}, {@code slot-workers}, {@code check} and {@code nemesis} live in other modules (their own
 * dependencies); the launcher runs them directly, and they are listed here so that
 * {@code --help} shows every command.
 */
@Command(name = "fencegate", mixinStandardHelpOptions = true, versionProvider = BuildInfo.class,
        description = "Fencing tokens that make distributed locks safe for data.",
        subcommands = {ServeCommand.class, Main.HashKey.class, Main.Demo.class, Main.Transfer.class, Main.SlotWorkers.class,
                Main.Check.class, Main.Nemesis.class, Main.Version.class},
        // One line a command: at picocli's default 80 columns, slot-workers' longer name wraps the others.
        usageHelpWidth = 100,
        // The launchers pass the name they were called by (./fencegate, bin/fencegate) as fencegate.command.
        footer = "%nRun ${sys:fencegate.command:-./fencegate} COMMAND --help for a command's options.")
public final class Main implements Runnable {

    public static void main(String[] args) {
        CommandLine cli = new CommandLine(new Main());
        int code = cli.execute(args);
        ServeCommand serve = cli.getSubcommands().get("serve").getCommand();
        if (code != 0 || !serve.serving()) {
            System.exit(code);
        }
        // serving: the Vert.x threads keep the JVM up until SIGTERM runs the shutdown hook
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    @Command(name = "hash-key", mixinStandardHelpOptions = true, description = "Make a new API key; print it once, with its config entry.")
    static final class HashKey implements Runnable {
        @Option(names = "--name", defaultValue = "client", description = "The key's name in config and logs.")
        String name;

        @Override
        public void run() {
            String key = ApiKeyHasher.newKey();
            System.out.println("API key (shown once, give it to the client): " + key);
            System.out.println("Add under auth.keys in fencegate.yaml (narrow stores and lockPrefixes as needed):");
            System.out.print(ApiKeyHasher.configSnippet(name, key));
        }
    }

    @Command(name = "version", mixinStandardHelpOptions = true, description = "Print the version and the git commit it was built from.")
    static final class Version implements Runnable {
        @Override
        public void run() {
            System.out.println(BuildInfo.describe());
        }
    }

    /** A command of another module: the launcher runs it; reached here only without the launcher. */
    abstract static class Elsewhere implements Callable<Integer> {
        @Unmatched
        List<String> args;

        private final String name;
        private final String module;

        Elsewhere(String name, String module) {
            this.name = name;
            this.module = module;
        }

        @Override
        public Integer call() {
            System.err.println("fencegate: '" + name + "' is in " + module + "; run it as " + System.getProperty("fencegate.command", "./fencegate") + " " + name
                    + " (the launcher builds and runs that module)");
            return 2;
        }
    }

    @Command(name = "demo", description = "The inventory-oversell demo, with and without fencing.")
    static final class Demo extends Elsewhere {
        Demo() {
            super("demo", "examples/demo");
        }
    }

    @Command(name = "transfer", description = "Money transfers: a plain lock vs a MultiLock and one transaction.")
    static final class Transfer extends Elsewhere {
        Transfer() {
            super("transfer", "examples/transfer");
        }
    }

    @Command(name = "slot-workers", description = "Workers on a fenced semaphore: a frozen worker's late writes are refused.")
    static final class SlotWorkers extends Elsewhere {
        SlotWorkers() {
            super("slot-workers", "examples/slot-workers");
        }
    }

    @Command(name = "check", description = "Check live gateways: run a workload, record it, judge the history.")
    static final class Check extends Elsewhere {
        Check() {
            super("check", "check/checker");
        }
    }

    @Command(name = "nemesis", description = "Run the check workloads under injected faults.")
    static final class Nemesis extends Elsewhere {
        Nemesis() {
            super("nemesis", "check/nemesis");
        }
    }
}
