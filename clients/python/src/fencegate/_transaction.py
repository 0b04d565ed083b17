"""Calls that touch several items of one store at once: a transaction and a fenced multi-read.

Both carry every key and token in one JSON body; the gateway judges every item's guard in one
database transaction and applies (or claims) all of them or none. Every argument is checked as it
is given, so a bad one raises before anything is sent.
"""
from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from . import _checks as check
from ._errors import ProblemError
from ._outcomes import (Applied, Claimed, ClaimOutcome, Committed, NotFound, Refused, Stale,
                        TransactionOutcome, Value)

if TYPE_CHECKING:
    from ._client import Client
    from ._http import Answer


class Transaction:
    """Puts and deletes of several items of one store, each with its own token, applied together or
    not at all. Made by :meth:`Client.transaction`; add items, then :meth:`commit`::

        outcome = (client.transaction("main")
                   .put("stock/a", b"4", token=group.token("main/stock/a"))
                   .delete("holds/r-17", token=group.token("main/holds/r-17"))
                   .commit())
        if isinstance(outcome, fencegate.Refused): ...   # outcome.items: key -> Stale

    A key may appear once. Not thread-safe while it is built.
    """

    def __init__(self, client: "Client", store: str) -> None:
        self._client = client
        self._store = check.text(store, "store")
        self._ops: List[Dict[str, Any]] = []
        self._keys: set = set()

    def put(self, key: str, value: Any, *, token: int) -> "Transaction":
        """Writes ``value`` (bytes, or str as UTF-8) to ``key`` if ``token`` passes its guard."""
        op = self._op("put", key, token)
        op["valueBase64"] = base64.b64encode(check.body(value)).decode("ascii")
        self._ops.append(op)
        return self

    def delete(self, key: str, *, token: int) -> "Transaction":
        """Deletes ``key`` (a tombstone keeps the token) if ``token`` passes its guard."""
        self._ops.append(self._op("delete", key, token))
        return self

    def commit(self) -> TransactionOutcome:
        """Sends the transaction: :class:`Committed` (all applied) or :class:`Refused` (none)."""
        if not self._ops:
            raise ValueError("a transaction needs at least one put or delete")
        answer = self._client._post_items(self._store, "transactions", {"ops": self._ops})
        if answer.status == 200:
            items = {}
            for item in _items(answer, "items"):
                items[str(item["key"])] = Applied(int(item["token"]), int(item.get("previousToken", 0)))
            return Committed(items)
        return refused(answer)

    def __len__(self) -> int:
        return len(self._ops)

    def _op(self, kind: str, key: str, token: int) -> Dict[str, Any]:
        check.key(key)
        check.token(token)
        if key in self._keys:
            raise ValueError("key %r is already in this transaction (each item once)" % key)
        self._keys.add(key)
        return {"op": kind, "key": key, "token": token}


TokensByKey = Union[Mapping[str, int], Iterable[Tuple[str, int]]]


def claim_body(tokens: TokensByKey) -> Dict[str, Any]:
    """The fenced multi-read's body, every key and token checked; raises before anything is sent."""
    if isinstance(tokens, (str, bytes)):
        raise TypeError("tokens must map keys to tokens, got %s" % type(tokens).__name__)
    try:
        pairs = iter(tokens.items() if isinstance(tokens, Mapping) else tokens)
    except TypeError as e:
        raise TypeError("tokens must map keys to tokens, got %s" % type(tokens).__name__) from e
    items: List[Dict[str, Any]] = []
    seen = set()
    for pair in pairs:
        try:
            key, token = pair
        except (TypeError, ValueError) as e:
            raise TypeError("tokens must map keys to tokens (or be (key, token) pairs), got %r" % (pair,)) from e
        check.key(key)
        check.token(token)
        if key in seen:
            raise ValueError("key %r is given twice" % key)
        seen.add(key)
        items.append({"key": key, "token": token})
    if not items:
        raise ValueError("tokens must name at least one key")
    return {"items": items}


def claimed(answer: "Answer") -> ClaimOutcome:
    if answer.status == 200:
        read: Dict[str, Union[Value, NotFound]] = {}
        for item in _items(answer, "items"):
            if item.get("found"):
                read[str(item["key"])] = Value(base64.b64decode(item.get("valueBase64", "")), int(item.get("token", 0)))
            else:
                read[str(item["key"])] = NotFound()
        return Claimed(read)
    return refused(answer)


def refused(answer: "Answer") -> Refused:
    """A 409 listing every refused item; any other answer (or a 409 without the list) is a problem."""
    if answer.status == 409:
        items = _items(answer, "refused", required=False)
        if items:
            return Refused({str(i["key"]): Stale(int(i.get("currentToken", 0)), int(i.get("fence", i.get("currentToken", 0))),
                                                 int(i["token"])) for i in items})
    raise ProblemError.from_answer(answer.status, answer.content_type, answer.body)


def _items(answer: "Answer", member: str, required: bool = True) -> List[Dict[str, Any]]:
    try:
        parsed: Optional[Any] = json.loads(answer.body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        parsed = None
    items = parsed.get(member) if isinstance(parsed, dict) else None
    if isinstance(items, list) and all(isinstance(i, dict) and "key" in i for i in items):
        return items
    if not required:
        return []
    raise ProblemError(answer.status, "about:blank", "unreadable response",
                       "no %r list in %r" % (member, answer.body[:200]))
