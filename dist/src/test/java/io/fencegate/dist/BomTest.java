package io.fencegate.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** fencegate-bom names every library module the build publishes, and the standalone example stays outside the build. */
class BomTest {
    private static final Path REPO = ReleaseArchiveIT.repoRoot();
    private static final Pattern ARTIFACT = Pattern.compile("</parent>\\s*<artifactId>([^<]+)</artifactId>");

    @Test
    void bomListsEveryLibraryModule() throws Exception {
        String bom = Files.readString(REPO.resolve("bom/pom.xml"));
        for (String folder : List.of("spi", "testing", "schema", "token-issuer", "storage-adapters", "gateway", "check", "integrations")) {
            try (Stream<Path> poms = Files.walk(REPO.resolve(folder))) {
                for (Path pom : poms.filter(p -> p.getFileName().toString().equals("pom.xml"))
                        .filter(p -> !p.toString().contains("/target/")).toList()) {
                    String text = Files.readString(pom);
                    Matcher m = ARTIFACT.matcher(text);
                    if (m.find() && !text.contains("<packaging>pom</packaging>")) {
                        assertThat(bom).as(pom + " is published: fencegate-bom must list it")
                                .contains("<artifactId>" + m.group(1) + "</artifactId>");
                    }
                }
            }
        }
    }

    @Test
    void standaloneExampleImportsTheBomAndIsNoModuleOfTheBuild() throws Exception {
        String pom = Files.readString(REPO.resolve("examples/standalone-client/pom.xml"));
        assertThat(pom).doesNotContain("<parent>").contains("<artifactId>fencegate-bom</artifactId>", "<scope>import</scope>");
        assertThat(Files.readString(REPO.resolve("examples/pom.xml"))).doesNotContain("standalone-client");
    }
}
