package io.fencegate.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Snippets in the docs marked {@code <!-- from: path -->} are copies of code that a test runs:
 * each must appear in that file as written (whitespace aside), so a snippet that drifts from the
 * tested code fails here, and the release's version appears wherever the example pins it.
 */
class DocSnippetsTest {
    private static final Path REPO = ReleaseArchiveIT.repoRoot();
    private static final Pattern MARKED = Pattern.compile("<!-- from: (\\S+) -->\\s*```\\w*\\n(.*?)\\n```", Pattern.DOTALL);

    @Test
    void everyMarkedSnippetIsInTheFileItNames() throws Exception {
        int checked = 0;
        for (String doc : new String[] {"docs/spring.md", "docs/library.md"}) {
            Matcher m = MARKED.matcher(Files.readString(REPO.resolve(doc)));
            while (m.find()) {
                String source = Files.readString(REPO.resolve(m.group(1)));
                assertThat(squeeze(source)).as(doc + ": the snippet from " + m.group(1) + " is not in it:\n" + m.group(2))
                        .contains(squeeze(m.group(2)));
                checked++;
            }
        }
        assertThat(checked).as("marked snippets").isGreaterThanOrEqualTo(5);
    }

    @Test
    void theBootExamplePinsThisBuildsVersion() throws Exception {
        String parent = Files.readString(REPO.resolve("pom.xml"));
        Matcher version = Pattern.compile("<artifactId>fencegate-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(parent);
        assertThat(version.find()).isTrue();
        assertThat(Files.readString(REPO.resolve("examples/spring-boot-flyway/pom.xml")))
                .contains("<fencegate.version>" + version.group(1) + "</fencegate.version>");
    }

    private static String squeeze(String text) {
        return text.replaceAll("\\s+", " ").strip();
    }
}
