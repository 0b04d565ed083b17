package io.fencegate.issuer.redis;

import java.nio.file.Path;

/** Child-process half of the cross-process test: raises a shared mark and prints each new mark. */
public final class HighWaterMarkRaiser {

    private HighWaterMarkRaiser() { }

    public static void main(String[] args) {
        FileTokenHighWaterMark mark = new FileTokenHighWaterMark(Path.of(args[0]));
        int times = Integer.parseInt(args[1]);
        long block = Long.parseLong(args[2]);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < times; i++) {
            out.append(mark.raise(0, block)).append('\n');
        }
        System.out.print(out);
        System.out.flush();
    }
}
