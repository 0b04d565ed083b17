package io.fencegate.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.junit.jupiter.api.Test;

/**
 * The gateway's classpath (what the release archive's lib/ holds) has one Jackson version: core,
 * annotations, databind and YAML from one release, not Vert.x's core beside the build's databind.
 */
class JacksonVersionsTest {

    @Test
    void coreAnnotationsDatabindAndYamlAreOneVersion() {
        String core = com.fasterxml.jackson.core.json.PackageVersion.VERSION.toString();
        assertThat(com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.toString()).isEqualTo(core);
        assertThat(com.fasterxml.jackson.dataformat.yaml.PackageVersion.VERSION.toString()).isEqualTo(core);
        String annotations = JsonProperty.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        assertThat(annotations).endsWith("jackson-annotations-" + core + ".jar");
    }
}
