package io.fencegate.store.jdbc.provider;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Which H2 URLs open a file database in this process (claimed) and which do not (shared or not local). */
class H2FilesTest {

    @Test
    void fileUrlsNameTheDatabaseBaseName() {
        assertThat(H2Files.localDatabase("jdbc:h2:file:/d/h2/main")).contains(Path.of("/d/h2/main"));
        assertThat(H2Files.localDatabase("jdbc:h2:/d/h2/main;MODE=PostgreSQL")).contains(Path.of("/d/h2/main"));
        assertThat(H2Files.localDatabase("jdbc:h2:./main")).contains(Path.of("main").toAbsolutePath());
        assertThat(H2Files.localDatabase("jdbc:h2:~/main")).contains(Path.of(System.getProperty("user.home"), "main"));
    }

    @Test
    void memoryServerOtherFileSystemsAndAutoServerAreNotClaimed() {
        assertThat(H2Files.localDatabase("jdbc:h2:mem:x;DB_CLOSE_DELAY=-1")).isEmpty();
        assertThat(H2Files.localDatabase("jdbc:h2:tcp://127.0.0.1:9092/mem:x")).isEmpty();
        assertThat(H2Files.localDatabase("jdbc:h2:zip:/d/db.zip!/main")).isEmpty();
        assertThat(H2Files.localDatabase("jdbc:h2:file:/d/main;AUTO_SERVER=TRUE")).isEmpty();
        assertThat(H2Files.localDatabase("jdbc:postgresql://127.0.0.1/test")).isEmpty();
    }
}
