"""The failures a task following the contract ends with (docs/contract.md, "The end of a task").
mcp_tasks re-exports them: import them from there."""
from __future__ import annotations

import asyncio
from typing import Any, Sequence

from temporalio.exceptions import ApplicationError, FailureError

MCP_PROTOCOL_ERROR = "McpProtocolError"
UNANSWERED = "McpTaskUnanswered"
TOOL_CANCELLATION = "ToolCancellation"


def protocol_error(code: int, message: str, data: Any = None) -> ApplicationError:
    """Raise it to end the task `failed` with this JSON-RPC error."""
    details = {"code": code} if data is None else {"code": code, "data": data}
    return ApplicationError(message, details, type=MCP_PROTOCOL_ERROR, non_retryable=True)


class InputTimeout(ApplicationError):
    """No answer for these input keys in time; they were withdrawn. Non-retryable: uncaught, it fails the task."""

    def __init__(self, keys: Sequence[str]) -> None:
        super().__init__(f"no answer for {', '.join(keys)} in time", type="InputTimeout", non_retryable=True)
        self.keys = list(keys)


def unanswered_input(keys: Sequence[str], limit_s: float) -> ApplicationError:
    """Nobody answered within the server's limit (memo answerWithinMs): the task ends failed, its undos run."""
    message = f"nobody answered {', '.join(keys)} within {round(limit_s * 1000)} ms: the task ends, as nobody is left to answer it"
    return ApplicationError(message, type=UNANSWERED, non_retryable=True)


def compensation_failed(failures: Sequence[tuple[str, BaseException]], after: str = "") -> ApplicationError:
    """The task's error when undos failed: -32603 naming every step left in place (`after`: what
    made the task undo them, when the tool's own error does not say it)."""
    reasons = [{"step": step, "error": _reason(err)} for step, err in failures]
    listed = "; ".join(f"{r['step']} ({r['error']})" for r in reasons)
    why = f" after {after}" if after else ""
    return protocol_error(-32603, f"{len(reasons)} step(s) could not be undone{why}: {listed}", {"undoFailures": reasons})


def tool_cancellation(err: BaseException) -> ApplicationError:
    """The task's error when the tool's own cancellation or timeout ended it, not tasks/cancel
    (worded as the TypeScript runtime words it)."""
    what = "a timeout" if isinstance(err, asyncio.TimeoutError) else "an inner task"
    message = f"the tool's own cancellation scope was cancelled ({what}), not tasks/cancel: {str(err) or type(err).__name__}"
    return ApplicationError(message, type=TOOL_CANCELLATION, non_retryable=True)


def is_bug(err: BaseException) -> bool:
    # what the SDK fails the workflow task for: any Exception that is not a Temporal failure or a timeout
    return isinstance(err, Exception) and not isinstance(err, (FailureError, asyncio.TimeoutError))


def _reason(err: BaseException) -> str:
    # an ActivityError says only "Activity task failed": the activity's own error is its cause
    return f"{err}: {err.__cause__}" if err.__cause__ else str(err)
