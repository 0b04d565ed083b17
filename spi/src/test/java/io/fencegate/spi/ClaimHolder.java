package io.fencegate.spi;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Child-process half of {@link LocalClaimTest}: {@code claim DIR} claims a directory and prints
 * "claimed" (and "lost: …" if its claim is lost); {@code lock FILE} holds a plain OS lock on a file,
 * as a backend holds its own (H2 its .mv.db), and prints "locked". Both hold until stdin closes.
 */
public final class ClaimHolder {
    private ClaimHolder() {}

    public static void main(String[] args) throws Exception {
        if (args[0].equals("claim")) {
            try (LocalClaim claim = LocalClaim.take(ExclusivePath.directory(null, "data directory", Path.of(args[1])),
                    why -> say("lost: " + why))) {
                say("claimed");
                holdUntilStdinCloses();
            }
        } else {
            try (FileChannel c = FileChannel.open(Path.of(args[1]), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                c.lock();
                say("locked");
                holdUntilStdinCloses();
            }
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void holdUntilStdinCloses() throws Exception {
        while (System.in.read() >= 0) {
            // hold until the parent closes our stdin (or dies)
        }
    }
}
