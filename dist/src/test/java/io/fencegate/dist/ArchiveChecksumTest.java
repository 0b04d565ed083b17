package io.fencegate.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Each release archive has a .sha256 beside it, in sha256sum's format, that matches it. */
class ArchiveChecksumTest {

    @Test
    void eachArchiveHasAMatchingSha256File() throws Exception {
        for (Path archive : new Path[] {Unpacked.archive(), Path.of(System.getProperty("fencegate.zip"))}) {
            Path sums = archive.resolveSibling(archive.getFileName() + ".sha256");
            assertThat(sums).exists();
            assertThat(Files.readString(sums).strip()).isEqualTo(sha256(archive) + "  " + archive.getFileName());
        }
    }

    private static String sha256(Path file) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
