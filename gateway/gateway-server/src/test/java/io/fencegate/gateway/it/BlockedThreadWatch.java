package io.fencegate.gateway.it;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.vertx.core.VertxOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * Catches Vert.x's blocked-thread warnings. Tests run the gateway's Vert.x with a tight limit
 * ({@link #options()}) so anything blocking an event loop for 200 ms shows up here.
 */
final class BlockedThreadWatch implements AutoCloseable {
    private final Logger logger = (Logger) LoggerFactory.getLogger("io.vertx.core.impl.BlockedThreadChecker");
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    BlockedThreadWatch() {
        appender.start();
        logger.addAppender(appender);
    }

    static VertxOptions options() {
        return new VertxOptions()
                .setBlockedThreadCheckInterval(50).setBlockedThreadCheckIntervalUnit(TimeUnit.MILLISECONDS)
                .setMaxEventLoopExecuteTime(200).setMaxEventLoopExecuteTimeUnit(TimeUnit.MILLISECONDS)
                // The stack with every warning: a failure then says where the loop was, not only how long.
                .setWarningExceptionTime(200).setWarningExceptionTimeUnit(TimeUnit.MILLISECONDS);
    }

    /**
     * The warnings, but for the server's start of listening: binding its port once, on a cold JVM,
     * loads the server's classes on the event loop (213 ms at load 10), before any request is
     * served; what the watch is for is the serving.
     */
    List<String> warnings() {
        return appender.list.stream().filter(e -> !whileBinding(e)).map(BlockedThreadWatch::describe).toList();
    }

    private static boolean whileBinding(ILoggingEvent event) {
        if (event.getThrowableProxy() == null) {
            return false;
        }
        for (var frame : event.getThrowableProxy().getStackTraceElementProxyArray()) {
            if (frame.getSTEAsString().contains("io.vertx.core.net.impl.NetServerImpl.bind(")) {
                return true;
            }
        }
        return false;
    }

    /** The warning and the blocked thread's top frames. */
    private static String describe(ILoggingEvent event) {
        StringBuilder b = new StringBuilder(event.getFormattedMessage());
        if (event.getThrowableProxy() != null) {
            var frames = event.getThrowableProxy().getStackTraceElementProxyArray();
            for (int i = 0; i < Math.min(frames.length, 25); i++) {
                b.append("\n    ").append(frames[i].getSTEAsString());
            }
        }
        return b.toString();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
