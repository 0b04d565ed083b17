package io.fencegate.store.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * One item on disk: token, fence, key and value in one file, so they switch together when the
 * file is replaced. Layout (big-endian): the header, magic {@code FGI2}, flags (1 = has a value),
 * token, fence, key length + UTF-8 key, CRC32C of the header so far; then the value; then the
 * trailer, value length and CRC32C of everything before it. A torn or foreign file fails a
 * checksum and is reported, never served.
 *
 * <p>The header has its own checksum so that a write judges the guard by reading the header
 * alone ({@link #readHeader}): its cost does not grow with the value it replaces. The trailer
 * comes last so that a value can be written as it arrives, before its length is known
 * ({@link FilesStreamedWrite}). Files of the older layout ({@code FGI1}: one checksum at the end,
 * the value's length before it) are still read, whole.
 *
 * @param value null for a tombstone or a fence-only item
 */
record ItemFile(String key, long token, long fence, byte[] value) {
    private static final int MAGIC = 0x46474932; // "FGI2"
    private static final int MAGIC_V1 = 0x46474931; // "FGI1"
    /** magic, flags, token, fence, key length. */
    private static final int FIXED_HEADER = 4 + 1 + 8 + 8 + 4;
    private static final int TRAILER = 4 + 4;

    /** What the guard needs of an item: read from the header alone. */
    record Header(String key, long token, long fence) { }

    byte[] encode() {
        byte[] header = header(key, token, fence, value != null);
        int valueLength = value == null ? 0 : value.length;
        ByteBuffer b = ByteBuffer.allocate(header.length + valueLength + TRAILER).put(header);
        if (value != null) {
            b.put(value);
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.put(trailer(valueLength, crc));
        return b.array();
    }

    /** The header of an item file, ending with its own checksum. */
    static byte[] header(String key, long token, long fence, boolean hasValue) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(FIXED_HEADER + k.length + 4);
        b.putInt(MAGIC).put((byte) (hasValue ? 1 : 0)).putLong(token).putLong(fence).putInt(k.length).put(k);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    /** The trailer after a value of {@code valueLength} bytes; {@code crc} has seen everything before it. */
    static byte[] trailer(int valueLength, CRC32C crc) {
        ByteBuffer b = ByteBuffer.allocate(TRAILER).putInt(valueLength);
        crc.update(b.array(), 0, 4);
        return b.putInt((int) crc.getValue()).array();
    }

    /** The item stored at {@code file}, or null if there is none; a corrupt file is an IOException. */
    static ItemFile read(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long size = ch.size();
            if (size > Integer.MAX_VALUE - 64) {
                throw new IOException("item file " + file + " is too large");
            }
            return decode(file, readFully(ch, 0, (int) size));
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /**
     * The header of the item at {@code file}, or null if there is none, checked by its own
     * checksum without reading the value (a file of the older layout is read and checked whole).
     */
    static Header readHeader(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long size = ch.size();
            byte[] fixed = readFully(ch, 0, (int) Math.min(size, FIXED_HEADER));
            if (fixed.length < FIXED_HEADER || ByteBuffer.wrap(fixed).getInt() != MAGIC) {
                ItemFile whole = read(file);
                return whole == null ? null : new Header(whole.key, whole.token, whole.fence);
            }
            int keyLength = ByteBuffer.wrap(fixed).getInt(FIXED_HEADER - 4);
            if (keyLength < 0 || FIXED_HEADER + (long) keyLength + 4 + TRAILER > size) {
                throw new IOException("corrupt item file " + file);
            }
            ByteBuffer header = ByteBuffer.wrap(readFully(ch, 0, FIXED_HEADER + keyLength + 4));
            Header h = decodeHeader(file, header);
            return h;
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static byte[] readFully(FileChannel ch, long position, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length);
        while (b.hasRemaining() && ch.read(b, position + b.position()) >= 0) {
            // keep reading until full or end of file
        }
        if (b.hasRemaining()) {
            throw new IOException("item file shrank while it was read");
        }
        return b.array();
    }

    /** The header at {@code b}'s start, its checksum checked; {@code b} is left after it. */
    private static Header decodeHeader(Path file, ByteBuffer b) throws IOException {
        try {
            b.getInt(); // magic, checked by the caller
            b.get(); // flags
            long token = b.getLong();
            long fence = b.getLong();
            byte[] k = new byte[b.getInt()];
            b.get(k);
            CRC32C crc = new CRC32C();
            crc.update(b.array(), 0, b.position());
            if (b.getInt() != (int) crc.getValue()) {
                throw new IOException("checksum mismatch in the header of item file " + file);
            }
            return new Header(new String(k, StandardCharsets.UTF_8), token, fence);
        } catch (RuntimeException e) { // underflow, negative sizes: a torn or foreign file
            throw new IOException("corrupt item file " + file, e);
        }
    }

    private static ItemFile decode(Path file, byte[] bytes) throws IOException {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            int magic = b.getInt();
            if (magic == MAGIC_V1) {
                return decodeV1(file, bytes);
            }
            if (magic != MAGIC) {
                throw new IOException("not a fencegate item file: " + file);
            }
            boolean hasValue = b.get(4) == 1;
            b.position(0);
            Header h = decodeHeader(file, b);
            int valueStart = b.position();
            int valueLength = bytes.length - valueStart - TRAILER;
            ByteBuffer trailer = ByteBuffer.wrap(bytes, bytes.length - TRAILER, TRAILER);
            CRC32C crc = new CRC32C();
            crc.update(bytes, 0, bytes.length - 4);
            if (valueLength < 0 || trailer.getInt() != valueLength || trailer.getInt() != (int) crc.getValue()) {
                throw new IOException("checksum mismatch in item file " + file);
            }
            byte[] v = new byte[valueLength];
            System.arraycopy(bytes, valueStart, v, 0, valueLength);
            return new ItemFile(h.key(), h.token(), h.fence(), hasValue ? v : null);
        } catch (RuntimeException e) { // underflow, negative sizes: a torn or foreign file
            throw new IOException("corrupt item file " + file, e);
        }
    }

    /** The older layout: header without its own checksum, value length, value, CRC32C of all before it. */
    private static ItemFile decodeV1(Path file, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        b.getInt();
        boolean hasValue = b.get() == 1;
        long token = b.getLong();
        long fence = b.getLong();
        byte[] k = new byte[b.getInt()];
        b.get(k);
        byte[] v = new byte[b.getInt()];
        b.get(v);
        int stored = b.getInt();
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        if (stored != (int) crc.getValue() || b.hasRemaining()) {
            throw new IOException("checksum mismatch in item file " + file);
        }
        return new ItemFile(new String(k, StandardCharsets.UTF_8), token, fence, hasValue ? v : null);
    }
}
