package io.fencegate.issuer.zookeeper;

/** The read-write lease and semaphore contracts with tokens from the lock parent's cversion (sequence + 1). */
class CversionZooKeeperReadWriteAndSemaphoreIT extends ZooKeeperReadWriteAndSemaphoreIT {

    @Override
    protected TokenMode tokenMode() {
        return TokenMode.CVERSION;
    }
}
