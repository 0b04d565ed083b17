"""fencegate: a client for the fencegate gateway's HTTP API (standard library only).

    import fencegate

    client = fencegate.Client("http://127.0.0.1:8080")
    with client.lease("main/stock/widget", ttl=10, wait=5) as lease:
        read = client.get("main", "stock/widget", token=lease.token)   # fenced read
        ...
"""
from ._client import Client
from ._errors import (CallTimedOut, ConnectFailed, FencegateError, LockHeld, ProblemError,
                      TransportError)
from ._group import LeaseGroup
from ._lease import Lease, LeaseLoss, LostSignal
from ._outcomes import (AlreadyApplied, Applied, Claimed, ClaimOutcome, Committed, Executed, Grant,
                        GroupGrant, NotFound, ReadOutcome, Refused, Stale, StatementOutcome,
                        TransactionOutcome, Value, WriteOutcome)
from ._transaction import Transaction

__version__ = "0.1.0.dev0"

__all__ = [
    "Client", "Lease", "LeaseLoss", "LostSignal", "Grant", "GroupGrant", "LeaseGroup", "Transaction",
    "Applied", "AlreadyApplied", "Stale", "Value", "NotFound", "Executed", "Committed", "Claimed", "Refused",
    "WriteOutcome", "ReadOutcome", "StatementOutcome", "TransactionOutcome", "ClaimOutcome",
    "FencegateError", "ProblemError", "LockHeld", "TransportError", "ConnectFailed", "CallTimedOut",
]
