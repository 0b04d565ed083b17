package io.fencegate.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every link between the user docs (README.md, CHANGELOG.md, docs/*.md) reaches its target: a
 * relative link names a file that exists and, with {@code #anchor}, a heading of that page; a
 * reference written as {@code production.md, "Backup and restore"} names a heading, or a bold
 * lead-in ({@code **One mark per key prefix.**}), of that page. A section moved between pages
 * fails here until every reference follows it.
 */
class DocLinksTest {
    private static final Path REPO = ReleaseArchiveIT.repoRoot();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern SECTION_REF = Pattern.compile("\\b([A-Za-z]+\\.md)\\)?(?:'s)?,? \\(?\"([^\"]{3,80})\"");

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(REPO.resolve("README.md"), REPO.resolve("CHANGELOG.md")));
        try (Stream<Path> docs = Files.list(REPO.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    @Test
    void everyRelativeLinkReachesAnExistingFileAndHeading() throws Exception {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            Matcher m = LINK.matcher(Files.readString(page));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                checked++;
                int hash = target.indexOf('#');
                String file = hash >= 0 ? target.substring(0, hash) : target;
                String anchor = hash >= 0 ? target.substring(hash + 1) : null;
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(REPO.relativize(page) + ": " + target + " (no such file)");
                } else if (anchor != null && resolved.toString().endsWith(".md") && !anchors(resolved).contains(anchor)) {
                    broken.add(REPO.relativize(page) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(checked).isGreaterThan(20);
        assertThat(broken).isEmpty();
    }

    @Test
    void everyQuotedSectionReferenceNamesASectionOfThatPage() throws Exception {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            Matcher m = SECTION_REF.matcher(Files.readString(page).replaceAll("\\s+", " "));
            while (m.find()) {
                Path target = REPO.resolve("docs").resolve(m.group(1));
                if (!Files.exists(target)) {
                    target = REPO.resolve(m.group(1));
                }
                if (!Files.exists(target)) {
                    broken.add(REPO.relativize(page) + ": " + m.group(1) + " (no such page)");
                    continue;
                }
                checked++;
                String section = m.group(2);
                String text = Files.readString(target).replaceAll("\\s+", " ");
                boolean heading = Pattern.compile("(^|\\n)#+ " + Pattern.quote(section), Pattern.MULTILINE)
                        .matcher(Files.readString(target)).find();
                if (!heading && !text.contains("**" + section)) {
                    broken.add(REPO.relativize(page) + ": " + m.group(1) + ", \"" + section + "\"");
                }
            }
        }
        assertThat(checked).isGreaterThan(3);
        assertThat(broken).isEmpty();
    }

    /** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
    private static List<String> anchors(Path page) throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(page)) {
            if (line.startsWith("#")) {
                String title = line.replaceFirst("^#+\\s*", "").strip().toLowerCase(Locale.ROOT);
                out.add(title.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return out;
    }
}
