package io.fencegate.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The demo's defaults and the JDBC URLs it derives from --jdbc-url. */
class DemoOptionsTest {

    @Test
    void theChartGoesToTheSystemTempFolderNotTheCurrentDirectory() {
        DemoMain demo = new DemoMain();
        new CommandLine(demo).parseArgs();
        assertThat(demo.chart).isEqualTo(Path.of(System.getProperty("java.io.tmpdir"), "fencegate-demo", "demo.svg"));
        assertThat(demo.chart).isAbsolute();
    }

    @Test
    void aJdbcUrlKeepsItsServerAndParametersAndNamesTheDemosOwnSchemaOrDatabase() {
        assertThat(Databases.withDatabase("jdbc:mariadb://db1:3307/shop?sslMode=disable", "fg_demo_1"))
                .isEqualTo("jdbc:mariadb://db1:3307/fg_demo_1?sslMode=disable");
        assertThat(Databases.withDatabase("jdbc:mariadb://db1:3307", "fg_demo_1")).isEqualTo("jdbc:mariadb://db1:3307/fg_demo_1");
        assertThat(Databases.withParameter("jdbc:postgresql://db1/shop?ssl=false", "currentSchema=s"))
                .isEqualTo("jdbc:postgresql://db1/shop?ssl=false&currentSchema=s");
        assertThat(Databases.where("jdbc:postgresql://db1:5433/shop?password=secret")).isEqualTo("db1:5433/shop");
    }
}
