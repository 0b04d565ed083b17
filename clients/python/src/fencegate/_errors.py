"""Exceptions: the gateway's problem+json answers, and calls that never got one."""
from __future__ import annotations

import json
from typing import Any, Dict, Optional

PROBLEM_PREFIX = "urn:fencegate:problem:"


class FencegateError(Exception):
    """Base of every error this package raises (bad input raises ValueError / TypeError instead)."""


class ProblemError(FencegateError):
    """The gateway answered with an error (RFC 9457 problem+json), other than an expected outcome.

    ``kind`` is the problem type without ``urn:fencegate:problem:`` (``unknown-store``,
    ``token-not-granted``, ``unavailable``, ...); ``problem`` is the whole body as a dict.
    """

    def __init__(self, status: int, type: str, title: Optional[str], detail: Optional[str],
                 problem: Optional[Dict[str, Any]] = None) -> None:
        super().__init__("%d %s%s" % (status, type, ": " + detail if detail else ""))
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.problem: Dict[str, Any] = problem or {}

    @property
    def kind(self) -> str:
        return self.type[len(PROBLEM_PREFIX):] if self.type.startswith(PROBLEM_PREFIX) else self.type

    @property
    def retryable(self) -> bool:
        """408, 429 and 5xx may pass if tried again; any other status will not."""
        return self.status in (408, 429) or self.status >= 500

    @classmethod
    def from_answer(cls, status: int, content_type: str, body: bytes) -> "ProblemError":
        problem: Dict[str, Any] = {}
        if content_type.startswith("application/problem+json") or content_type.startswith("application/json"):
            try:
                parsed = json.loads(body.decode("utf-8"))
                if isinstance(parsed, dict):
                    problem = parsed
            except (ValueError, UnicodeDecodeError):
                pass
        if problem:
            kind = cls
            if status == 423:
                kind = LockHeld
            return kind(status, str(problem.get("type", "about:blank")), _str(problem.get("title")),
                        _str(problem.get("detail")), problem)
        text = body[:200].decode("utf-8", errors="replace")
        return cls(status, "about:blank", None, text or None)


class LockHeld(ProblemError):
    """423: the lock was still held by another lease when the wait ran out."""


class TransportError(FencegateError):
    """No answer from the gateway. A write may still have applied, unless this is a ConnectFailed:
    retry it with the same token (under ``strict``, AlreadyApplied then says it had)."""


class ConnectFailed(TransportError):
    """No connection could be made: nothing was sent."""


class CallTimedOut(TransportError, TimeoutError):
    """The gateway did not answer within the call's timeout (the call may have applied)."""


def _str(value: Any) -> Optional[str]:
    return None if value is None else str(value)
