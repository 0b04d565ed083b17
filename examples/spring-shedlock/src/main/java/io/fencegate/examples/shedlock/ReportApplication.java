package io.fencegate.examples.shedlock;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A service that runs {@link DailyReport} on every instance; ShedLock lets one run at a time.
 * Nothing here names fencegate: the starter turns {@code fencegate.issuer.*} into a lease issuer
 * and ShedLock's LockProvider, and the job reads its token from {@code FencedJob}.
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "10s")
public class ReportApplication {
    public static void main(String[] args) {
        SpringApplication.run(ReportApplication.class, args);
    }
}
