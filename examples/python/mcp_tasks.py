"""The MCP task runtime contract (docs/contract.md), version 1, for Temporal Python workflows.

A workflow that follows it gets what a TypeScript tool gets: statusMessage, input_required with
input requests answered by tasks/update, the UI's current details and McpTaskStatus. A workflow
that does not use it still works as a tool (status from Temporal, no statusMessage).

    @workflow.run
    async def run(self, args: dict) -> dict:
        task = McpTask()                            # once per run (McpTask(carry) after a continue-as-new)
        return await task.run(lambda: self.deploy(task, args))

    async def deploy(self, task: McpTask, args: dict) -> dict:
        task.set_status_message("reserving a slot")
        slot = await task.step(partial(workflow.execute_activity, reserve_slot, ...),
                               Undo("release_slot", [task_id], step="reserve a slot"))
        answer = await task.elicit("approval", "Deploy?", {"type": "object", ...}, timeout=3600)

From an activity, `report_progress("exporting rows", done=4000, total=10000)` makes the task's
statusMessage read "exporting rows (4,000 of 10,000)" while the activity runs (a heartbeat whose
details are {"mcpProgress": {...}}, docs/contract.md "Progress from activities").

`run` ends the task as docs/contract.md's table says ("The end of a task"), decided
in one place (`McpTask._end`): a cancel Temporal delivered undoes every registered step, newest
first, and ends the task cancelled; a failure, or a cancellation or timeout nobody requested,
undoes them too and fails it, as does a task nobody claimed in time (claim_guard.py); a bug retries the workflow task and undoes nothing; continue-as-new
undoes nothing (the undo list travels to the next run).
"""
from __future__ import annotations

import asyncio
from dataclasses import asdict
from datetime import timezone
from typing import Any, Awaitable, Callable, Mapping, NoReturn, TypeVar

from temporalio import workflow
from temporalio.common import SearchAttributeKey
from temporalio.exceptions import ApplicationError, FailureError, is_cancelled_exception

from claim_guard import ClaimGuard
from mcp_activity import ACTIVITY_PROGRESS_KEY, report_progress  # noqa: F401 (re-exported)
from mcp_failures import (MCP_PROTOCOL_ERROR, TOOL_CANCELLATION, UNANSWERED, InputTimeout,  # noqa: F401 (re-exported)
                          compensation_failed, is_bug, protocol_error, tool_cancellation, unanswered_input)
from mcp_undo import Undo, run_undos

T = TypeVar("T")

CONTRACT_VERSION = 1
TASK_MEMO_KEY = "mcpTask"  # written by the server at start; read it, never write it
PROGRESS_MEMO_KEY = "mcpProgress"  # {status, statusMessage?, lastUpdatedAt, inputRequests}
INPUT_RESPONSES_SIGNAL = "mcp.inputResponses"  # payload {key: response}
TASK_PROGRESS_QUERY = "mcp.taskProgress"  # answers the progress object
MCP_TASK_STATUS = SearchAttributeKey.for_keyword("McpTaskStatus")
# The end decided by McpTask._end (issue 31). Runs started by an older helper replay the end
# they had (_end_before_one_end): their histories hold its commands.
ONE_END_PATCH = "mcp-tasks.one-end"
ANSWER_DEADLINE_PATCH = "mcp-tasks.answer-deadline"


class McpTask:
    """The contract inside one workflow run. `carry` is what `carry()` returned before a continue-as-new."""

    def __init__(self, carry: Mapping[str, Any] | None = None, wf: Any = workflow) -> None:
        self._wf = wf
        carry = carry or {}
        self.progress: dict = dict(carry.get("progress") or {"status": "working", "lastUpdatedAt": self._now(), "inputRequests": {}})
        self._responses: dict = dict(carry.get("responses") or {})
        self._used: set = set(carry.get("usedKeys") or [])
        # newest first; steps of earlier runs of a continue-as-new chain are undone too
        self._undos: list[Undo] = [Undo(**u) for u in carry.get("undos") or []]
        wf.set_signal_handler(INPUT_RESPONSES_SIGNAL, self._on_responses)
        wf.set_query_handler(TASK_PROGRESS_QUERY, lambda: self.progress)
        self._guard = ClaimGuard(wf, wf.memo_value(TASK_MEMO_KEY, None) or {}, carry)

    def _on_responses(self, responses: Any) -> None:
        if not isinstance(responses, Mapping):  # not the contract's shape: raising here would fail every workflow task
            self._wf.logger.warning("ignored an %s signal that is not an object of answers", INPUT_RESPONSES_SIGNAL)
            return
        for key, value in responses.items():
            # only outstanding keys: never issued, withdrawn or already answered ones are ignored
            if key in self.progress["inputRequests"] and key not in self._responses:
                self._responses[key] = value

    def set_status_message(self, message: str) -> None:
        self._publish(statusMessage=message)

    async def request_inputs(self, requests: Mapping[str, dict], timeout: float | None = None) -> dict:
        """Asks for all of them at once; returns {key: response} once every one is answered.
        With `timeout` (seconds), the unanswered ones are withdrawn after it and InputTimeout is raised."""
        pending = self.progress["inputRequests"]
        fresh = {k: r for k, r in requests.items() if k not in pending}
        for key in fresh:
            if key in self._used:
                raise ValueError(f'input key "{key}" was already used in this task')
            self._used.add(key)
        if fresh:
            self._publish(inputRequests={**pending, **fresh})
        answers: dict = {}
        # the tool's own timeout, unless the server's limit on unanswered input comes first
        limit = self._answer_limit()
        own_first = limit is None or (timeout is not None and timeout <= limit)
        wait = timeout if own_first else limit
        # one deadline for the whole question: a partial answer does not restart it
        deadline = None if wait is None else self._wf.time() + wait
        try:
            while len(answers) < len(requests):
                try:
                    left = None if deadline is None else max(0.0, deadline - self._wf.time())
                    await self._wf.wait_condition(lambda: any(k in self._responses for k in requests if k not in answers), timeout=left)
                except asyncio.TimeoutError:
                    self._take_answers(requests, answers)  # an answer recorded with the timer still counts
                    if len(answers) < len(requests):
                        left_keys = [k for k in requests if k not in answers]
                        if own_first:
                            raise InputTimeout(left_keys) from None
                        raise unanswered_input(left_keys, limit) from None
                self._take_answers(requests, answers)
        finally:  # withdrawn when the wait ends otherwise (cancelled, timed out), with any answer not taken
            unanswered = [k for k in requests if k not in answers]
            for key in unanswered:
                self._responses.pop(key, None)
            if unanswered:
                self._publish(inputRequests={k: v for k, v in self.progress["inputRequests"].items() if k not in unanswered})
        return answers

    def _answer_limit(self) -> float | None:
        """The server's limit on an unanswered wait in seconds (memo answerWithinMs), for tasks started with one."""
        within = (self._wf.memo_value(TASK_MEMO_KEY, None) or {}).get("answerWithinMs")
        if not isinstance(within, (int, float)) or within <= 0 or not self._wf.patched(ANSWER_DEADLINE_PATCH):
            return None
        return within / 1000

    def _take_answers(self, requests: Mapping[str, dict], answers: dict) -> None:
        for key in requests:
            if key not in answers and key in self._responses:
                answers[key] = self._responses.pop(key)
        self._publish(inputRequests={k: v for k, v in self.progress["inputRequests"].items() if k not in answers})

    async def elicit(self, key: str, message: str, requested_schema: dict, timeout: float | None = None) -> dict:
        """A form elicitation; returns the client's ElicitResult {action, content?}. Unanswered
        within `timeout` (seconds), the request is withdrawn and reads as the client's cancel."""
        request = {"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": requested_schema}}
        try:
            return (await self.request_inputs({key: request}, timeout))[key]
        except InputTimeout:
            return {"action": "cancel"}

    async def step(self, forward: Callable[[], Awaitable[T]], undo: Undo) -> T:
        """Runs a step whose effect `undo` reverses if the task is cancelled or fails. The undo is
        registered BEFORE the step runs, so a cancel while it is in flight undoes it too (run forward
        activities with WAIT_CANCELLATION_COMPLETED so an undo never overtakes its step)."""
        self._undos.insert(0, undo)
        return await forward()

    async def compensate(self, after: str = "") -> None:
        """Undoes every registered step now, newest first, and forgets them. Every undo is attempted
        even when one fails, and a cancel cannot interrupt them; failures raise compensation_failed
        (`after`: why the task undoes them, named in its message)."""
        undos, self._undos = self._undos, []
        if not undos:
            return
        failures = await run_undos(self._wf, undos, lambda step: self.set_status_message(f"undoing: {step}"))
        if failures:  # said where people look: tasks/get's statusMessage and the UI's current details
            self.set_status_message("could not undo: " + ", ".join(step for step, _ in failures))
            raise compensation_failed(failures, after)

    async def run(self, body: Callable[[], Awaitable[Any]]) -> Any:
        """Runs the workflow's body and ends the task as docs/contract.md's table says (`_end`):
        - a cancel Temporal delivered (however the SDK raises it, also after the body returned):
          every step is undone, the task ends cancelled (Temporal CANCELED);
        - a failure, or a cancellation or timeout nobody requested (asyncio.wait_for, an inner task
          cancelled): every step is undone, the task ends failed with the tool's message;
        - nobody claimed the task in time (claim_guard): the body is cancelled, every step is undone,
          the task ends failed (McpTaskUnclaimed);
        - an undo that fails turns either into failed, -32603 naming each step not undone;
        - a bug (an exception that is not a Temporal failure): nothing is undone or recorded, the
          workflow task fails and Temporal retries it until a build that fixes it runs;
        - continue-as-new undoes nothing: the steps go along in the carry."""
        try:
            result = await self._guard.around(body)
            if self._cancel_requested():  # the cancel came too late to interrupt the body
                raise asyncio.CancelledError()
        except workflow.ContinueAsNewError:
            raise
        except BaseException as err:
            await self._end(err)
        self.record_status("completed")
        return result

    async def _end(self, err: BaseException) -> NoReturn:
        """The one place a task's end is decided; McpTaskStatus and the error raised (which sets
        Temporal's close status) both come from it. Always raises."""
        if not isinstance(err, (Exception, asyncio.CancelledError)):
            raise err  # the SDK's own BaseException (the worker evicting the run): nothing to decide
        if not self._wf.patched(ONE_END_PATCH):
            await self._end_before_one_end(err)
        unclaimed = self._guard.fired  # before a cancel that came after it: the guard's end
        cancelled = self._cancel_requested() and not unclaimed
        if is_bug(err):
            raise err  # no end: the workflow task fails and is retried until a fixed build runs it
        # Should an eviction ever arrive as a plain asyncio.CancelledError, the first command
        # below raises the SDK's eviction error and nothing is decided either.
        try:
            await self.compensate(self._guard.reason() if unclaimed else "")
        except ApplicationError as failed:
            self.record_status("failed")
            raise failed from err
        if unclaimed:
            self.record_status("failed")
            raise self._guard.failure() from err
        if cancelled:
            self.record_status("cancelled")
            if is_cancelled_exception(err):
                raise err  # as it is: with a cancel requested, Temporal records CANCELED
            # a cancel requested ends the task cancelled once its steps are undone, whatever else broke
            raise asyncio.CancelledError() from err
        self.record_status("failed")
        if is_cancelled_exception(err) or isinstance(err, asyncio.TimeoutError):
            raise tool_cancellation(err) from err
        raise err

    async def _end_before_one_end(self, err: BaseException) -> NoReturn:
        """The end of runs started before ONE_END_PATCH, as that helper decided it (replay only):
        an unrequested cancellation was re-raised, a bug undone and failed as ApplicationError."""
        cancelled = self._cancel_requested()
        if isinstance(err, asyncio.CancelledError) and not cancelled:
            raise err
        try:
            await self.compensate()
        except ApplicationError as failed:
            self.record_status("failed")
            raise failed from err
        if cancelled:
            self.record_status("cancelled")
            if is_cancelled_exception(err):
                raise err
            raise asyncio.CancelledError() from err
        self.record_status("failed")
        if isinstance(err, FailureError):
            raise err
        raise ApplicationError(f"{type(err).__name__}: {err}", type=type(err).__name__, non_retryable=True) from err

    def carry(self) -> dict:
        """What the next run needs (pass it as the last argument of continue-as-new)."""
        return {"progress": self.progress, "responses": self._responses, "usedKeys": sorted(self._used),
                "undos": [{**asdict(u), "args": list(u.args)} for u in self._undos], **self._guard.carry()}

    def continue_as_new(self, *args: Any) -> None:
        """Continues as new with `args` plus the carry, keeping memo and search attributes. A cancel
        already requested is not dropped at the boundary: the task ends cancelled instead (failed,
        unclaimed, once the claim guard fired)."""
        if self._cancel_requested() or self._guard.fired:
            raise asyncio.CancelledError()
        memo = {TASK_MEMO_KEY: self._wf.memo_value(TASK_MEMO_KEY, None), PROGRESS_MEMO_KEY: self.progress}
        self._wf.continue_as_new(args=[*args, self.carry()], memo=memo, search_attributes=self._wf.info().typed_search_attributes)

    def _cancel_requested(self) -> bool:
        # set once Temporal delivered tasks/cancel, whether or not the body ever saw it
        return self._wf.cancellation_reason() is not None

    def record_status(self, status: str) -> None:
        """McpTaskStatus, only where the server set it at start (the namespace has it registered)."""
        if self._wf.info().typed_search_attributes.get(MCP_TASK_STATUS) is not None:
            self._wf.upsert_search_attributes([MCP_TASK_STATUS.value_set(status)])

    def _publish(self, **changes: Any) -> None:
        previous = self.progress
        progress = {**previous, **changes}
        progress["status"] = "input_required" if progress["inputRequests"] else "working"
        if all(progress.get(k) == previous.get(k) for k in ("status", "statusMessage", "inputRequests")):
            return
        progress["lastUpdatedAt"] = self._now()
        self.progress = progress
        self._wf.upsert_memo({PROGRESS_MEMO_KEY: progress})
        self._wf.set_current_details(self._details())
        if progress["status"] != previous["status"]:
            self.record_status(progress["status"])

    def _details(self) -> str:
        p = self.progress
        summary = (self._wf.memo_value(TASK_MEMO_KEY, None) or {}).get("summary")
        lines = [summary] if summary else []
        lines.append(f"**{p['status']}**" + (f": {p['statusMessage']}" if p.get("statusMessage") else ""))
        if p["inputRequests"]:
            lines.append("waiting for input: " + ", ".join(p["inputRequests"]))
        return "\n\n".join(lines)

    def _now(self) -> str:
        return self._wf.now().astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
