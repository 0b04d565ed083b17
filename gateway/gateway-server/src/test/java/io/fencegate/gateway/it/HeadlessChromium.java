package io.fencegate.gateway.it;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * A real headless Chromium, driven through Debian's chromedriver with the W3C WebDriver protocol
 * (what Selenium speaks), in a few plain HTTP calls: no browser download, no extra dependency.
 * Needs {@code chromium} and {@code chromium-driver} installed (.ci/run installs them).
 */
final class HeadlessChromium implements AutoCloseable {
    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String DRIVER = "/usr/bin/chromedriver";

    private final Process driver;
    private final URI base;
    private final String session;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    HeadlessChromium(Path profile) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        driver = new ProcessBuilder(DRIVER, "--port=" + port, "--allowed-ips=127.0.0.1")
                .redirectErrorStream(true).redirectOutput(profile.resolve("chromedriver.log").toFile()).start();
        base = URI.create("http://127.0.0.1:" + port + "/");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                if (call("GET", "status", null).getJsonObject("value").getBoolean("ready", false)) {
                    break;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                driver.destroyForcibly();
                throw new IllegalStateException("chromedriver did not start");
            }
            Thread.sleep(100);
        }
        JsonObject options = new JsonObject().put("binary", CHROMIUM).put("args", new JsonArray()
                .add("--headless=new").add("--no-sandbox").add("--disable-gpu").add("--disable-dev-shm-usage")
                .add("--window-size=1280,900").add("--user-data-dir=" + profile.resolve("profile")));
        JsonObject caps = new JsonObject().put("capabilities", new JsonObject().put("alwaysMatch",
                new JsonObject().put("browserName", "chrome").put("goog:chromeOptions", options)));
        try {
            session = call("POST", "session", caps).getJsonObject("value").getString("sessionId");
        } catch (IOException | RuntimeException e) {
            driver.destroyForcibly();
            throw e;
        }
    }

    void open(URI url) throws Exception {
        call("POST", "session/" + session + "/url", new JsonObject().put("url", url.toString()));
    }

    /** Runs {@code script} in the page and answers its return value. */
    Object script(String script, Object... args) throws Exception {
        return call("POST", "session/" + session + "/execute/sync",
                new JsonObject().put("script", script).put("args", new JsonArray(java.util.List.of(args)))).getValue("value");
    }

    /** The visible text of the first element {@code css} matches, or null if none does. */
    String text(String css) throws Exception {
        Object text = script("const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css);
        return text == null ? null : text.toString();
    }

    void screenshot(Path png) throws Exception {
        String data = call("GET", "session/" + session + "/screenshot", null).getString("value");
        Files.write(png, Base64.getDecoder().decode(data));
    }

    private JsonObject call(String method, String path, JsonObject body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json");
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body.encode()));
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("WebDriver " + method + " " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return new JsonObject(response.body());
    }

    @Override
    public void close() throws Exception {
        try {
            if (session != null) {
                call("DELETE", "session/" + session, null);
            }
        } finally {
            driver.destroy();
            if (!driver.waitFor(10, TimeUnit.SECONDS)) {
                driver.destroyForcibly();
            }
        }
    }
}
