package io.fencegate.examples.support;

import io.fencegate.client.FencegateClient;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@code fencegate serve} on its embedded default for one test class, and its {@link StockShelf}:
 * {@code @RegisterExtension static final GatewayShelf GATEWAY = new GatewayShelf();}.
 */
public final class GatewayShelf implements BeforeAllCallback, AfterAllCallback {
    private ExampleProcess gateway;
    private StockShelf shelf;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        gateway = ExampleProcess.gateway();
        shelf = new StockShelf(gateway.url);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (gateway != null) {
            gateway.close();
        }
    }

    /** The gateway's base URL, {@code http://127.0.0.1:PORT}. */
    public String url() {
        return gateway.url;
    }

    public StockShelf shelf() {
        return shelf;
    }

    public FencegateClient client() {
        return shelf.client();
    }
}
