package io.fencegate.store.files;

import io.fencegate.store.GuardRule;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The child process of {@link FilesCrashIT}: writes keys {@code k0..k2} in a loop with rising
 * tokens from {@code args[1]}, each value naming its token, until it is killed.
 */
public final class CrashWriter {
    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        long token = Long.parseLong(args[1]);
        try (FilesGuardedStore store = FilesGuardedStore.open(root, GuardRule.STRICT)) {
            System.out.println("ready");
            System.out.flush();
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (true) {
                String key = "k" + random.nextInt(3);
                store.write(key, token, valueFor(token, random.nextInt(256 * 1024))).toCompletableFuture().join();
                token++;
            }
        }
    }

    static byte[] valueFor(long token, int padding) {
        byte[] head = ("written-with-" + token + ":").getBytes(StandardCharsets.US_ASCII);
        byte[] value = Arrays.copyOf(head, head.length + padding);
        Arrays.fill(value, head.length, value.length, (byte) ('a' + token % 26));
        return value;
    }
}
