package io.fencegate.client;

import java.nio.charset.StandardCharsets;

/**
 * Percent-encoding of path parts. A key may contain '/', so it is encoded segment by segment: the
 * slashes stay path separators (the gateway takes the rest of the path as the key) and everything
 * else outside RFC 3986's unreserved set is UTF-8 percent-encoded. {@code URLEncoder} is wrong here:
 * it is form encoding ('+' for space).
 */
final class KeyPaths {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private KeyPaths() {}

    /** Encodes a key, keeping its '/' separators. */
    static String key(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("key must not be empty");
        }
        StringBuilder out = new StringBuilder(key.length() + 8);
        int start = 0;
        for (int slash; (slash = key.indexOf('/', start)) >= 0; start = slash + 1) {
            out.append(segment(key.substring(start, slash))).append('/');
        }
        return out.append(segment(key.substring(start))).toString();
    }

    /** Encodes one path segment, '/' included. */
    static String segment(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if (unreserved(c)) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        return out.toString();
    }

    private static boolean unreserved(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~';
    }
}
