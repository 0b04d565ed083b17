package io.fencegate.spring.boot;

import io.fencegate.issuer.LeaseIssuer;
import java.lang.reflect.Proxy;

/** An issuer that is only ever compared by identity: every call fails. */
final class TestIssuers {
    private TestIssuers() { }

    static LeaseIssuer unusable() {
        return (LeaseIssuer) Proxy.newProxyInstance(TestIssuers.class.getClassLoader(), new Class<?>[] {LeaseIssuer.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "close" -> null;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "unusable issuer";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
