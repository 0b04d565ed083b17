package io.fencegate.gateway.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict percent-decoding of a raw request path part. The router's own decoding and path
 * normalisation are not used for keys on purpose: normalisation would silently resolve {@code ..}
 * segments that must be refused, and '+' is a literal plus in a path, not a space.
 */
final class PathDecoder {
    private PathDecoder() {}

    /** The decoded text; a stray '%', a bad hex digit or invalid UTF-8 is a 400 of {@code type}. */
    static String decode(String raw, String type) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c != '%') {
                byte[] plain = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(plain, 0, plain.length);
                continue;
            }
            int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
            int lo = hi >= 0 ? Character.digit(raw.charAt(i + 2), 16) : -1;
            if (lo < 0) {
                throw Problem.badRequest(type, "malformed percent-encoding in '" + shorten(raw) + "'");
            }
            bytes.write(hi << 4 | lo);
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw Problem.badRequest(type, "percent-encoded bytes are not UTF-8 in '" + shorten(raw) + "'");
        }
    }

    static String shorten(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
