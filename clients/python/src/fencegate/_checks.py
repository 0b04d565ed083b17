"""Argument checks: bad input raises here, before anything is sent."""
from __future__ import annotations

import math
from typing import Any, Union
from urllib.parse import quote

MAX_TOKEN = 2 ** 63 - 1
MIN_TTL = 0.1  # the gateway's smallest ttlMs is 100


def token(value: Any, name: str = "token") -> int:
    # bool is an int in Python: True would go out as token 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, got %s" % (name, type(value).__name__))
    if not 1 <= value <= MAX_TOKEN:
        raise ValueError("%s must be from 1 to 2**63-1, got %d" % (name, value))
    return value


def seconds(value: Any, name: str, minimum: float, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("%s must be a number of seconds, got %s" % (name, type(value).__name__))
    if math.isnan(value) or math.isinf(value):
        raise ValueError("%s must be finite, got %r" % (name, value))
    if allow_zero and value == 0:
        return 0.0
    if value < minimum or (minimum == 0 and value <= 0):
        raise ValueError("%s must be %s, got %r" % (
            name, "positive" if minimum == 0 else "at least %g s" % minimum, value))
    return float(value)


def text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %s" % (name, type(value).__name__))
    if not value:
        raise ValueError("%s must not be empty" % name)
    if "\0" in value:
        raise ValueError("%s must not contain NUL" % name)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError("%s is not valid Unicode (%s)" % (name, e.reason)) from e
    return value


MAX_GROUP = 8  # locks in one lease group, the gateway's bound


def locks(value: Any) -> list:
    """A lease group's locks: 1 to 8 distinct names (a str alone is refused: it is no list of locks)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError("locks must be a list of lock names, got %s" % type(value).__name__)
    if not 1 <= len(value) <= MAX_GROUP:
        raise ValueError("locks must name 1 to %d locks, got %d" % (MAX_GROUP, len(value)))
    for i, name in enumerate(value):
        text(name, "locks[%d]" % i)
    if len(set(value)) != len(value):
        raise ValueError("locks must be distinct, got %r" % (list(value),))
    return list(value)


def key(value: Any) -> str:
    """The gateway's key rule: '/'-separated segments, none empty, '.' or '..'."""
    text(value, "key")
    for segment in value.split("/"):
        if segment in ("", ".", ".."):
            raise ValueError("key must have no empty, '.' or '..' segment, got %r" % value)
    return value


def body(value: Any) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError("value must be bytes or str, got %s" % type(value).__name__)


def segment(value: str) -> str:
    """One path segment, '/' included, percent-encoded as UTF-8 (RFC 3986 unreserved kept)."""
    return quote(value, safe="")


def key_path(value: str) -> str:
    """A key keeps its '/' separators: the gateway takes the rest of the path as the key."""
    return "/".join(segment(s) for s in value.split("/"))


def millis(value: Union[int, float]) -> int:
    return int(round(value * 1000))


MODES = ("read", "write")
MAX_PERMITS = 1000  # the gateway's largest semaphore


def mode(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("mode must be \"read\" or \"write\", got %s" % type(value).__name__)
    if value not in MODES:
        raise ValueError("mode must be \"read\" or \"write\", got %r" % value)
    return value


def permits(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("permits must be an int, got %s" % type(value).__name__)
    if not 1 <= value <= MAX_PERMITS:
        raise ValueError("permits must be 1 to %d, got %d" % (MAX_PERMITS, value))
    return value
