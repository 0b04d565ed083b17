package io.fencegate.store.files;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where a key lives under the root. Each '/'-separated segment becomes a directory name, the last
 * one the item file {@code <name>.fgi}. Names keep {@code [A-Za-z0-9_-]} and percent-encode every
 * other byte, '.' included, so no name is ever "." or "..", starts with '.', or ends in
 * {@code .fgi}; a path can only go down from the root. Segments whose encoding would pass the
 * file-name limit are named by their SHA-256 (the item file keeps the full key, and reads check it).
 */
final class KeyPaths {
    static final String ITEM_SUFFIX = ".fgi";
    private static final int MAX_NAME = 200;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** Linux's PATH_MAX, counting the terminating NUL: the longest path a file call accepts. */
    private static final int MAX_PATH = 4096;
    /** A temporary beside an item ("/.fg-tmp-", its owner and a UUID) is longer than the item's own last name by at most this. */
    private static final int TEMPORARY_EXTRA = 96;

    private KeyPaths() {}

    /**
     * The longest key, in UTF-8 bytes, whose every path below {@code root} (a temporary's
     * included) stays within the path limit: an encoded name is at most three times its segment's
     * bytes (a longer one is hashed to 66 characters), so a key can take three times its length. A
     * longer key would fail in the file system ("file name too long") instead of as a bad key.
     */
    static int maxKeyBytesUnder(Path root) {
        return Math.max(1, (MAX_PATH - 1 - root.toString().length() - TEMPORARY_EXTRA - ITEM_SUFFIX.length()) / 3);
    }

    /** The item file of {@code key}, which {@code StoreLimits.checkKey} has accepted, {@link NameCase#PLAIN}. */
    static Path itemFile(Path root, String key) {
        return itemFile(root, key, NameCase.PLAIN);
    }

    /**
     * The item file of {@code key} named as {@code names} says: {@link NameCase#FOLDED} encodes
     * capital letters too, so names hold lower-case letters only outside {@code %XX} (whose hex
     * digits are always capitals) and no two keys' names differ in case alone.
     */
    static Path itemFile(Path root, String key, NameCase names) {
        boolean folded = names == NameCase.FOLDED;
        String[] segments = key.split("/", -1);
        Path p = root;
        for (int i = 0; i < segments.length - 1; i++) {
            p = p.resolve(name(segments[i], folded));
        }
        return p.resolve(name(segments[segments.length - 1], folded) + ITEM_SUFFIX);
    }

    private static String name(String segment, boolean folded) {
        byte[] bytes = segment.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(bytes.length + 8);
        for (byte b : bytes) {
            int c = b & 0xFF;
            if ((c >= 'a' && c <= 'z') || (!folded && c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        return out.length() <= MAX_NAME ? out.toString() : "%H" + sha256(bytes);
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
