package io.fencegate.gateway.http;

import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** A file the gateway ships in its jar and serves as is (the OpenAPI document, the status page). */
final class ClasspathResource {

    private ClasspathResource() {}

    /** Loads {@code path} once, at start: a jar without it is a broken build, so it fails loudly. */
    static Buffer load(String path) {
        try (InputStream in = ClasspathResource.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException(path.substring(1) + " is missing from the gateway's resources");
            }
            return Buffer.buffer(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
