"""A fake of the `workflow` module for the helper's unit tests (test_mcp_tasks*.py)."""
import asyncio
import logging
from datetime import datetime, timezone
from types import SimpleNamespace

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError

from mcp_tasks import MCP_TASK_STATUS


async def raise_(err):
    raise err


class ContinueAsNew(workflow.ContinueAsNewError):
    """The SDK raises a subclass of its own; direct instances are refused."""


def continue_as_new(**kwargs):
    raise ContinueAsNew(kwargs)


def activity_cancelled() -> ActivityError:
    """What the Python SDK raises in the workflow when a cancel reaches a running activity."""
    err = ActivityError("Activity cancelled", scheduled_event_id=5, started_event_id=6, identity="w", activity_type="provision",
                        activity_id="1", retry_state=None)
    err.__cause__ = CancelledError("Cancelled")
    return err


class FakeWorkflow:
    def __init__(self, with_status=True, task_memo=None):
        self.signals, self.queries, self.memo, self.details, self.statuses = {}, {}, {}, None, []
        self.task_memo = {"summary": "approve(x=1)", **(task_memo or {})}
        attrs = {MCP_TASK_STATUS: "working"} if with_status else {}
        self._info = SimpleNamespace(typed_search_attributes=attrs)

    def set_signal_handler(self, name, fn): self.signals[name] = fn
    def set_query_handler(self, name, fn): self.queries[name] = fn
    def upsert_memo(self, updates): self.memo.update(updates)
    def set_current_details(self, text): self.details = text
    def memo_value(self, key, default=None): return {"mcpTask": self.task_memo}.get(key, default)
    def info(self): return self._info
    def now(self): return datetime(2026, 12, 3, 12, 0, 0, 123000, tzinfo=timezone.utc)
    def upsert_search_attributes(self, updates): self.statuses += [u.value for u in updates]
    def cancellation_reason(self): return self.cancel_reason
    def time(self): return asyncio.get_running_loop().time()  # the workflow's clock: moves with the test's loop
    def patched(self, patch_id): return patch_id not in self.replaying_before

    replaying_before: set = set()  # patch ids a test replays a history from before of

    logger = logging.getLogger("fake-workflow")

    cancel_reason = None  # set by a test: Temporal delivered a cancel
    activities: list
    failing: set = set()  # activity names that fail

    async def execute_activity(self, name, args, **options):
        self.activities = [*getattr(self, "activities", []), (name, *args)]
        await asyncio.sleep(0)  # a cancel of the workflow's task would land here, if not shielded
        if name in self.failing:
            raise ApplicationError(f"{name} refused", non_retryable=True)

    async def wait_condition(self, fn, timeout=None, timeout_summary=None):
        async def until():
            while not fn():
                await asyncio.sleep(0)
        await asyncio.wait_for(until(), timeout)  # raises asyncio.TimeoutError, as the SDK does
