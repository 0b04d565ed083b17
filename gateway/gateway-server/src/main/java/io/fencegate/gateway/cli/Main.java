package io.fencegate.gateway.cli;

import io.fencegate.gateway.auth.ApiKeyHasher;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fencegate serve | hash-key}: the command line behind the {@code ./fencegate} launcher. */
@Command(name = "fencegate", mixinStandardHelpOptions = true, version = "fencegate 0.1.0",
        description = "Fencing tokens that make distributed locks safe for data.",
        subcommands = {ServeCommand.class, Main.HashKey.class})
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

    @Command(name = "hash-key", description = "Make a new API key; print it once, with its config entry.")
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
}
