package io.fencegate.client;

/** A gateway's answer: the status, the two headers the client reads (empty when absent) and the body. */
record HttpAnswer(int status, String contentType, String fencingToken, byte[] body) {
    static final String FENCING_TOKEN = "Fencing-Token";
    static final String ACCEPT = "application/json, application/problem+json, */*";
}
