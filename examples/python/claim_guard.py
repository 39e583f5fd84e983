"""The claim guard of mcp_tasks.McpTask (docs/contract.md, "The claim guard").

A run whose caller gets its handle only after a bounded wait (a call from a client without Tasks)
is unreachable if its server dies during that wait: nobody holds the taskId. Such runs are started
with `claimWithinMs` in their memo; the server signals `mcp.claimed` before it answers with the
handle. Unclaimed past the deadline, the guard cancels the body McpTask.run is running (as
Temporal's cancel would), every registered undo runs and the task ends failed (McpTask._end).
The deadline is absolute: an unclaimed chain carries it across continue-as-new ("claimDeadline",
ms since the epoch in workflow time), so the next run ends at the same moment.
"""
from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Mapping, TypeVar

from temporalio.exceptions import ApplicationError

T = TypeVar("T")

CLAIMED_SIGNAL = "mcp.claimed"  # no payload: the server is handing the caller its handle
# Runs started before it replay without a guard: their histories hold no timer for it.
CLAIM_GUARD_PATCH = "mcp-tasks.claim-guard"
UNCLAIMED = "McpTaskUnclaimed"


class ClaimGuard:
    """Armed on a run of a task that asks for it (memo claimWithinMs): the first run, or a continued
    run of an unclaimed chain (`carry["claimDeadline"]`); a continued run without one was claimed."""

    def __init__(self, wf: Any, task_memo: Mapping[str, Any], carry: Mapping[str, Any]) -> None:
        self._wf = wf
        self.within_ms = task_memo.get("claimWithinMs")
        self.deadline: int | None = None  # workflow time (ms since the epoch) by which the claim must arrive
        self.claimed = self.fired = False  # fired: the deadline passed unclaimed and the guard cancelled the body
        self._body: asyncio.Task | None = None  # the task running the tool's body, while it runs
        self._ended = False
        carried = carry.get("claimDeadline")
        if not isinstance(self.within_ms, (int, float)) or self.within_ms <= 0:
            return
        if (carry and not isinstance(carried, (int, float))) or not wf.patched(CLAIM_GUARD_PATCH):
            return
        now = round(wf.now().timestamp() * 1000)
        self.deadline = round(carried if carry else now + self.within_ms)
        wf.set_signal_handler(CLAIMED_SIGNAL, self._on_claimed)
        if self.deadline <= now:
            self.fired = True  # a continued run past the chain's deadline: run() ends it before the body starts
            return
        # the first run waits exactly claimWithinMs, a continued one what is left of it
        self._watching = asyncio.ensure_future(self._watch((self.within_ms if not carry else self.deadline - now) / 1000))

    def _on_claimed(self, *_: Any) -> None:  # any payload is ignored: raising here would fail every workflow task
        self.claimed = True

    async def _watch(self, timeout_s: float) -> None:
        try:
            await self._wf.wait_condition(lambda: self.claimed, timeout=timeout_s, timeout_summary="claim deadline")
        except asyncio.TimeoutError:
            # a cancel Temporal delivered first is the task's end: the guard does not take it over
            if self.claimed or self._ended or self._wf.cancellation_reason() is not None:
                return
            self.fired = True
            if self._body is not None:
                self._body.cancel()

    async def around(self, body: Callable[[], Awaitable[T]]) -> T:
        """Runs the tool's body; fired meanwhile, the guard cancels it, and a body that outlived that
        (it caught the cancellation) must not complete either."""
        self._body = asyncio.current_task()
        try:
            if self.fired:
                raise asyncio.CancelledError()
            result = await body()
        finally:
            self._body, self._ended = None, True  # from here the task's end is decided: the guard keeps out of it
        if self.fired:
            raise asyncio.CancelledError()
        return result

    def reason(self) -> str:
        return f"nobody claimed the task within {round(self.within_ms or 0)}ms (its caller never got the handle)"

    def failure(self) -> ApplicationError:
        """What an unclaimed task ends with once its undos ran."""
        return ApplicationError(f"{self.reason()}: steps undone", type=UNCLAIMED, non_retryable=True)

    def carry(self) -> dict:
        """What a continue-as-new hands on: the deadline of a guard still waiting for its claim."""
        pending = self.deadline is not None and not self.claimed and not self.fired
        return {"claimDeadline": self.deadline} if pending else {}
