package io.fencegate.store.files;

import io.fencegate.store.StreamedWrite;
import io.fencegate.store.WriteResult;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.zip.CRC32C;

/**
 * A files-store write whose value arrives in pieces. The item file is written as the value comes:
 * its header at open (token = fence = the write's token, known before the guard is judged), each
 * piece appended with the checksum kept running, into a temporary file beside the item. At commit
 * the trailer is written and the file fsynced, outside the item's lock; then, holding it, the store
 * judges the guard on the item's header and renames the file into place if it applies. A refused,
 * failed or aborted write deletes its temporary, so nothing of it remains.
 *
 * <p>All file work runs on the store's threads; the monitor orders an {@link #abort} after an
 * append in progress.
 */
final class FilesStreamedWrite implements StreamedWrite {
    private final FilesGuardedStore store;
    private final String key;
    private final long token;
    private final Path temp;
    private final FileChannel channel; // guarded by this
    private final CRC32C crc = new CRC32C(); // guarded by this
    private final long maxValueBytes;
    private long length; // guarded by this
    private boolean finished; // committing or aborted; guarded by this

    private FilesStreamedWrite(FilesGuardedStore store, String key, long token, Path temp, FileChannel channel,
                               long maxValueBytes) {
        this.store = store;
        this.key = key;
        this.token = token;
        this.temp = temp;
        this.channel = channel;
        this.maxValueBytes = maxValueBytes;
    }

    /** Creates {@code temp} and writes the item's header into it; on a store thread. */
    static FilesStreamedWrite open(FilesGuardedStore store, String key, long token, Path temp, long maxValueBytes)
            throws IOException {
        FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        FilesStreamedWrite write = new FilesStreamedWrite(store, key, token, temp, channel, maxValueBytes);
        try {
            write.put(List.of(ByteBuffer.wrap(ItemFile.header(key, token, token, true))));
            return write;
        } catch (IOException | RuntimeException e) {
            write.discard();
            throw e;
        }
    }

    @Override
    public CompletionStage<Void> append(List<ByteBuffer> bytes) {
        return store.run(key, () -> {
            synchronized (this) {
                if (finished) {
                    throw new IllegalStateException("the write of " + key + " was aborted");
                }
                try {
                    long size = 0;
                    for (ByteBuffer b : bytes) {
                        size += b.remaining();
                    }
                    if (length + size > maxValueBytes) {
                        throw new IllegalArgumentException("value of more than " + (length + size)
                                + " bytes is over the limit of " + maxValueBytes);
                    }
                    put(bytes);
                    length += size;
                } catch (IOException | RuntimeException e) {
                    discard();
                    throw e;
                }
            }
            return null;
        });
    }

    @Override
    public CompletionStage<WriteResult> commit() {
        return store.run(key, () -> {
            synchronized (this) {
                if (finished) {
                    throw new IllegalStateException("the write of " + key + " was aborted");
                }
                finished = true;
            }
            try {
                ByteBuffer trailer = ByteBuffer.wrap(ItemFile.trailer((int) length, crc));
                while (trailer.hasRemaining()) {
                    channel.write(trailer);
                }
                channel.force(true);
                channel.close();
                return store.moveIntoPlace(key, token, temp);
            } finally {
                channel.close();
                Files.deleteIfExists(temp); // still there if the guard refused or anything failed
            }
        });
    }

    @Override
    public void abort() {
        store.run(key, () -> {
            discard();
            return null;
        }).exceptionally(closedStore -> {
            discard(); // the store's threads are gone: here, then
            return null;
        });
    }

    /** Writes {@code bytes} whole and feeds them to the checksum. */
    private void put(List<ByteBuffer> bytes) throws IOException {
        ByteBuffer[] all = new ByteBuffer[bytes.size()];
        long left = 0;
        for (int i = 0; i < all.length; i++) {
            all[i] = bytes.get(i).duplicate();
            crc.update(bytes.get(i).duplicate());
            left += all[i].remaining();
        }
        while (left > 0) {
            left -= channel.write(all);
        }
    }

    /** Closes and deletes the temporary unless a commit has it; idempotent. */
    private synchronized void discard() {
        if (finished) {
            return;
        }
        finished = true;
        try {
            channel.close();
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            // an orphan temporary: the store's next open removes it once it is a minute old
        }
    }
}
