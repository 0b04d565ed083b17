package io.fencegate.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process's memory as an operator sees it: the heap used right after a full GC ({@code jcmd
 * GC.run}, then {@code GC.heap_info}) and the resident set from {@code /proc} (now and peak).
 */
final class ProcessMemory {
    private static final Pattern USED = Pattern.compile("total (\\d+)K, used (\\d+)K");

    private ProcessMemory() {}

    /** Heap in use after a full GC, in bytes; -1 if jcmd could not tell. */
    static long heapAfterGc(long pid) {
        try {
            if (pid == ProcessHandle.current().pid()) {
                System.gc();
                Thread.sleep(200);
                System.gc();
                return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            }
            jcmd(pid, "GC.run");
            Matcher m = USED.matcher(jcmd(pid, "GC.heap_info"));
            return m.find() ? Long.parseLong(m.group(2)) * 1024 : -1;
        } catch (Exception e) {
            return -1;
        }
    }

    /** Resident set size now ({@code VmRSS}) or at its peak ({@code VmHWM}), in bytes; -1 if unknown. */
    static long rss(long pid, boolean peak) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith(peak ? "VmHWM:" : "VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (Exception e) {
            // not Linux, or the process is gone
        }
        return -1;
    }

    private static String jcmd(long pid, String command) throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(Files.exists(jcmd) ? jcmd.toString() : "jcmd", Long.toString(pid), command)
                .redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        return new String(out);
    }

    static String mib(long bytes) {
        return bytes < 0 ? "–" : String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }
}
