"""The MCP task runtime contract (docs/contract.md), version 1, for Temporal Python workflows.

A workflow that follows it gets what a TypeScript tool gets: statusMessage, input_required with
input requests answered by tasks/update, the UI's current details and McpTaskStatus. A workflow
that does not use it still works as a tool (status from Temporal, no statusMessage).

    task = McpTask()                                # in the workflow's run, once per run
    task.set_status_message("reserving a slot")
    answer = await task.elicit("approval", "Deploy?", {"type": "object", ...})
    return await task.finish(result)                # or: return await task.run(body)
"""
from __future__ import annotations

import asyncio
from datetime import timezone
from typing import Any, Awaitable, Callable, Mapping

from temporalio import workflow
from temporalio.common import SearchAttributeKey
from temporalio.exceptions import ApplicationError, FailureError

CONTRACT_VERSION = 1
TASK_MEMO_KEY = "mcpTask"  # written by the server at start; read it, never write it
PROGRESS_MEMO_KEY = "mcpProgress"  # {status, statusMessage?, lastUpdatedAt, inputRequests}
INPUT_RESPONSES_SIGNAL = "mcp.inputResponses"  # payload {key: response}
TASK_PROGRESS_QUERY = "mcp.taskProgress"  # answers the progress object
MCP_TASK_STATUS = SearchAttributeKey.for_keyword("McpTaskStatus")
MCP_PROTOCOL_ERROR = "McpProtocolError"


def protocol_error(code: int, message: str, data: Any = None) -> ApplicationError:
    """Raise it to end the task `failed` with this JSON-RPC error."""
    details = {"code": code} if data is None else {"code": code, "data": data}
    return ApplicationError(message, details, type=MCP_PROTOCOL_ERROR, non_retryable=True)


class McpTask:
    """The contract inside one workflow run. `carry` is what `carry()` returned before a continue-as-new."""

    def __init__(self, carry: Mapping[str, Any] | None = None, wf: Any = workflow) -> None:
        self._wf = wf
        carry = carry or {}
        self.progress: dict = dict(carry.get("progress") or {"status": "working", "lastUpdatedAt": self._now(), "inputRequests": {}})
        self._responses: dict = dict(carry.get("responses") or {})
        self._used: set = set(carry.get("usedKeys") or [])
        wf.set_signal_handler(INPUT_RESPONSES_SIGNAL, self._on_responses)
        wf.set_query_handler(TASK_PROGRESS_QUERY, lambda: self.progress)

    def _on_responses(self, responses: Mapping[str, Any]) -> None:
        for key, value in (responses or {}).items():
            # only outstanding keys: never issued or already answered ones are ignored
            if key in self.progress["inputRequests"] and key not in self._responses:
                self._responses[key] = value

    def set_status_message(self, message: str) -> None:
        self._publish(statusMessage=message)

    async def request_inputs(self, requests: Mapping[str, dict], timeout: float | None = None) -> dict:
        """Asks for all of them at once; returns {key: response} once every one is answered."""
        pending = self.progress["inputRequests"]
        fresh = {k: r for k, r in requests.items() if k not in pending}
        for key in fresh:
            if key in self._used:
                raise ValueError(f'input key "{key}" was already used in this task')
            self._used.add(key)
        if fresh:
            self._publish(inputRequests={**pending, **fresh})
        answers: dict = {}
        try:
            while len(answers) < len(requests):
                await self._wf.wait_condition(lambda: any(k in self._responses for k in requests if k not in answers), timeout=timeout)
                for key in requests:
                    if key not in answers and key in self._responses:
                        answers[key] = self._responses.pop(key)
                self._publish(inputRequests={k: v for k, v in self.progress["inputRequests"].items() if k not in answers})
        finally:  # withdrawn when the wait ends otherwise (cancelled, timed out)
            unanswered = [k for k in requests if k not in answers]
            if unanswered:
                self._publish(inputRequests={k: v for k, v in self.progress["inputRequests"].items() if k not in unanswered})
        return answers

    async def elicit(self, key: str, message: str, requested_schema: dict, timeout: float | None = None) -> dict:
        """A form elicitation; returns the client's ElicitResult {action, content?}."""
        request = {"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": requested_schema}}
        return (await self.request_inputs({key: request}, timeout))[key]

    async def run(self, body: Callable[[], Awaitable[Any]]) -> Any:
        """Runs the workflow's body and records the terminal McpTaskStatus. A bug (any exception
        that is not a Temporal failure) fails the workflow, as in the TypeScript runtime, instead
        of retrying its workflow task forever."""
        try:
            result = await body()
        except asyncio.CancelledError:
            self.record_status("cancelled")
            raise
        except FailureError:
            self.record_status("failed")
            raise
        except Exception as err:
            self.record_status("failed")
            name = type(err).__name__
            raise ApplicationError(f"{name}: {err}", type=name, non_retryable=True) from err
        self.record_status("completed")
        return result

    def carry(self) -> dict:
        """What the next run needs (pass it as the last argument of continue-as-new)."""
        return {"progress": self.progress, "responses": self._responses, "usedKeys": sorted(self._used)}

    def continue_as_new(self, *args: Any) -> None:
        """Continues as new with `args` plus the carry, keeping memo and search attributes."""
        memo = {TASK_MEMO_KEY: self._wf.memo_value(TASK_MEMO_KEY, None), PROGRESS_MEMO_KEY: self.progress}
        self._wf.continue_as_new(args=[*args, self.carry()], memo=memo, search_attributes=self._wf.info().typed_search_attributes)

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
