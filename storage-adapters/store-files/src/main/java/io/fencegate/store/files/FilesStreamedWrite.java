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
 * A files-store write whose value arrives in pieces. The item file is written as the value comes,
 * into a temporary file beside the item made with the first piece (one trip to the store's
 * threads fewer than making it at open): the header (token = fence = the write's token, known
 * before the guard is judged), then each piece, the checksum kept running. At commit
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
    private Path temp; // guarded by this, null until the first piece
    private FileChannel channel; // guarded by this
    private final CRC32C crc = new CRC32C(); // guarded by this
    private final long maxValueBytes;
    private long length; // guarded by this
    private boolean finished; // committing or aborted; guarded by this

    FilesStreamedWrite(FilesGuardedStore store, String key, long token, long maxValueBytes) {
        this.store = store;
        this.key = key;
        this.token = token;
        this.maxValueBytes = maxValueBytes;
    }

    /** Creates the temporary and writes the item's header into it, once; on a store thread, holding the monitor. */
    private void createTemporary() throws IOException {
        if (channel != null) {
            return;
        }
        temp = store.temporaryFor(key);
        channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        put(List.of(ByteBuffer.wrap(ItemFile.header(key, token, token, true))));
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
                    createTemporary();
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
                synchronized (this) {
                    createTemporary(); // an empty value
                }
                ByteBuffer trailer = ByteBuffer.wrap(ItemFile.trailer((int) length, crc));
                while (trailer.hasRemaining()) {
                    channel.write(trailer);
                }
                channel.force(true);
                channel.close();
                return store.moveIntoPlace(key, token, temp);
            } finally {
                synchronized (this) {
                    if (channel != null) {
                        channel.close();
                        Files.deleteIfExists(temp); // still there if the guard refused or anything failed
                    }
                }
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
        if (channel == null) {
            return;
        }
        try {
            channel.close();
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            // an orphan temporary: the store's next open removes it once it is a minute old
        }
    }
}
