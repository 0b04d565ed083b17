package io.fencegate.store.files;

import static io.fencegate.store.testkit.Stages.await;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One process's share of {@link TwoProcessCounterIT}: takes tokens from a counter file shared by
 * both processes (a stand-in issuer: strictly increasing, under an OS file lock), and does
 * fenced read, a short pause, write +1. Prints the writes it saw applied.
 */
public final class CounterWorker {
    static final String KEY = "counter";

    public static void main(String[] args) throws Exception {
        System.out.println(run(Path.of(args[0]), Path.of(args[1]), Integer.parseInt(args[2])));
    }

    static long run(Path root, Path tokenFile, int attempts) throws Exception {
        long acknowledged = 0;
        try (FilesGuardedStore store = FilesGuardedStore.open(root, GuardRule.STRICT)) {
            for (int i = 0; i < attempts; i++) {
                long token = nextToken(tokenFile);
                ReadResult read = await(store.fencedRead(KEY, token));
                if (read instanceof Stale) {
                    continue;
                }
                long value = read instanceof Found f ? Long.parseLong(new String(f.value(), StandardCharsets.UTF_8)) : 0;
                Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                byte[] next = Long.toString(value + 1).getBytes(StandardCharsets.UTF_8);
                if (await(store.write(KEY, token, next)) instanceof Applied) {
                    acknowledged++;
                }
            }
        }
        return acknowledged;
    }

    private static long nextToken(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE); FileLock ignored = ch.lock()) {
            ByteBuffer b = ByteBuffer.allocate(8);
            long current = ch.read(b, 0) == 8 ? b.flip().getLong() : 0;
            ch.write(ByteBuffer.allocate(8).putLong(0, current + 1), 0);
            return current + 1;
        }
    }
}
