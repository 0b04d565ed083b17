package io.fencegate.client;
/** Placeholder until the client lands. */
final class Placeholder { private Placeholder() {} }
