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
 * file is replaced. Layout (big-endian): magic {@code FGI1}, flags (1 = has a value), token,
 * fence, key length + UTF-8 key, value length + value, CRC32C of everything before it. A torn or
 * foreign file fails the checksum and is reported, never served.
 *
 * @param value null for a tombstone or a fence-only item
 */
record ItemFile(String key, long token, long fence, byte[] value) {
    private static final int MAGIC = 0x46474931; // "FGI1"

    byte[] encode() {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        int valueLength = value == null ? 0 : value.length;
        ByteBuffer b = ByteBuffer.allocate(4 + 1 + 8 + 8 + 4 + k.length + 4 + valueLength + 4);
        b.putInt(MAGIC).put((byte) (value == null ? 0 : 1)).putLong(token).putLong(fence)
                .putInt(k.length).put(k).putInt(valueLength);
        if (value != null) {
            b.put(value);
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    /** The item stored at {@code file}, or null if there is none; a corrupt file is an IOException. */
    static ItemFile read(Path file) throws IOException {
        byte[] bytes;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long size = ch.size();
            if (size > Integer.MAX_VALUE - 64) {
                throw new IOException("item file " + file + " is too large");
            }
            ByteBuffer b = ByteBuffer.allocate((int) size);
            while (b.hasRemaining() && ch.read(b) >= 0) {
                // keep reading until full or end of file
            }
            bytes = b.array();
        } catch (NoSuchFileException e) {
            return null;
        }
        return decode(file, bytes);
    }

    private static ItemFile decode(Path file, byte[] bytes) throws IOException {
        try {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            if (b.getInt() != MAGIC) {
                throw new IOException("not a fencegate item file: " + file);
            }
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
        } catch (RuntimeException e) { // underflow, negative sizes: a torn or foreign file
            throw new IOException("corrupt item file " + file, e);
        }
    }
}
