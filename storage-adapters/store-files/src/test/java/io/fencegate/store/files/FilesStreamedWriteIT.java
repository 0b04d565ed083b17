package io.fencegate.store.files;

import static io.fencegate.store.testkit.Stages.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Missing;
import io.fencegate.store.Stale;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.StoreUnavailableException;
import io.fencegate.store.StreamedWrite;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A value written in pieces ({@link GuardedStore#openWrite}): applied like {@link GuardedStore#write},
 * judged at commit, and leaving nothing behind (no temporary, no change) when refused, aborted
 * or over the limit. Also the item file's header-only guard check, and files of the older layout.
 */
class FilesStreamedWriteIT {
    private TempRoot root;
    private GuardedStore store;

    @BeforeEach
    void open() throws IOException {
        root = new TempRoot("files-streamed");
        store = FilesGuardedStore.open(new FilesStoreOptions().root(root.path).rule(GuardRule.STRICT)
                .limits(new StoreLimits(2048, 1 << 20)));
    }

    @AfterEach
    void close() throws IOException {
        store.close();
        root.close();
    }

    @Test
    void aValueInPiecesIsAppliedWholeAndLeavesNoTemporary() throws Exception {
        assertThat(store.streamsValues()).isTrue();
        byte[] value = random(300_000);
        StreamedWrite write = await(store.openWrite("a/b", 5, value.length));
        for (int at = 0; at < value.length; at += 70_000) {
            int end = Math.min(value.length, at + 70_000);
            int middle = (at + end) / 2;
            await(write.append(List.of(ByteBuffer.wrap(value, at, middle - at), ByteBuffer.wrap(value, middle, end - middle))));
        }
        assertThat(await(write.commit())).isEqualTo(new Applied(0));
        assertFound("a/b", value, 5, 5);
        assertThat(temporaries()).isEmpty();
        // and once more over it, of unknown length, empty
        StreamedWrite empty = await(store.openWrite("a/b", 6, -1));
        assertThat(await(empty.commit())).isEqualTo(new Applied(5));
        Found found = (Found) await(store.read("a/b"));
        assertThat(found.value()).isEmpty();
        assertThat(temporaries()).isEmpty();
    }

    @Test
    void aStaleStreamedWriteIsJudgedAtCommitAndLeavesNothing() throws Exception {
        StreamedWrite late = await(store.openWrite("k", 7, -1));
        await(late.append(List.of(ByteBuffer.wrap(bytes("late")))));
        assertThat(temporaries()).as("the value goes to disk as it arrives").hasSize(1);
        // a higher token writes while the late write is still receiving
        assertThat(await(store.write("k", 9, bytes("newer")))).isEqualTo(new Applied(0));
        assertThat(await(late.commit())).isEqualTo(new Stale(9, 9, 7));
        assertFound("k", bytes("newer"), 9, 9);
        assertThat(temporaries()).isEmpty();
    }

    @Test
    void anAbortedWriteChangesNothingAndLeavesNoTemporary() throws Exception {
        await(store.write("k", 3, bytes("kept")));
        StreamedWrite write = await(store.openWrite("k", 4, 1000));
        await(write.append(List.of(ByteBuffer.wrap(random(500)))));
        write.abort();
        write.abort();
        assertThatThrownBy(() -> await(write.commit())).isInstanceOf(IllegalStateException.class);
        assertFound("k", bytes("kept"), 3, 3);
        assertThat(temporaries()).isEmpty();
        assertThat(await(store.read("never"))).isEqualTo(new Missing(0, 0));
    }

    @Test
    void aValueOverTheLimitIsRefusedAndChangesNothing() throws Exception {
        await(store.write("k", 3, bytes("kept")));
        assertThatThrownBy(() -> await(store.openWrite("k", 4, (1 << 20) + 1))).isInstanceOf(IllegalArgumentException.class);
        StreamedWrite growing = await(store.openWrite("k", 4, -1));
        await(growing.append(List.of(ByteBuffer.wrap(random(1 << 19)))));
        assertThatThrownBy(() -> await(growing.append(List.of(ByteBuffer.wrap(random((1 << 19) + 1))))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> await(growing.commit())).isInstanceOf(IllegalStateException.class);
        assertFound("k", bytes("kept"), 3, 3);
        assertThat(temporaries()).isEmpty();
        assertThatThrownBy(() -> await(store.openWrite("../k", 4, 1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> await(store.openWrite("k", 0, 1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCorruptHeaderIsReportedNotJudged() throws Exception {
        await(store.write("k", 3, bytes("v")));
        Path file = itemFile("k");
        byte[] raw = Files.readAllBytes(file);
        raw[6] ^= 1; // inside the token
        Files.write(file, raw);
        assertThatThrownBy(() -> await(store.write("k", 4, bytes("w")))).isInstanceOf(StoreUnavailableException.class);
        StreamedWrite streamed = await(store.openWrite("k", 4, -1));
        assertThatThrownBy(() -> await(streamed.commit())).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> await(store.read("k"))).isInstanceOf(StoreUnavailableException.class);
        assertThat(Files.readAllBytes(file)).isEqualTo(raw);
        assertThat(temporaries()).isEmpty();
    }

    /** A file written before the header had its own checksum: read, judged and replaced as before. */
    @Test
    void anItemFileOfTheOlderLayoutIsStillReadAndReplaced() throws Exception {
        await(store.write("k", 1, bytes("placeholder")));
        Path file = itemFile("k");
        Files.write(file, olderLayout("k", 5, 6, bytes("old")));
        assertFound("k", bytes("old"), 5, 6);
        assertThat(await(store.write("k", 6, bytes("x")))).isEqualTo(new Applied(5));
        assertFound("k", bytes("x"), 6, 6);
        Files.write(file, olderLayout("k", 5, 8, bytes("old")));
        StreamedWrite stale = await(store.openWrite("k", 7, -1));
        assertThat(await(stale.commit())).isEqualTo(new Stale(5, 8, 7));
    }

    private void assertFound(String key, byte[] value, long token, long fence) throws Exception {
        Found found = (Found) await(store.read(key));
        assertThat(found.value()).isEqualTo(value);
        assertThat(found.token()).isEqualTo(token);
        assertThat(found.fence()).isEqualTo(fence);
    }

    private static byte[] olderLayout(String key, long token, long fence, byte[] value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + 1 + 8 + 8 + 4 + k.length + 4 + value.length + 4);
        b.putInt(0x46474931).put((byte) 1).putLong(token).putLong(fence).putInt(k.length).put(k).putInt(value.length).put(value);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        return b.putInt((int) crc.getValue()).array();
    }

    private Path itemFile(String key) throws IOException {
        return KeyPaths.itemFile(root.path.toRealPath(), key);
    }

    private List<Path> temporaries() throws IOException {
        try (Stream<Path> all = Files.walk(root.path)) {
            return new ArrayList<>(all.filter(p -> p.getFileName().toString().startsWith(AtomicFiles.TEMP_PREFIX)).toList());
        }
    }

    private static byte[] random(int size) {
        byte[] b = new byte[size];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
