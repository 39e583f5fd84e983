"""Unit test of mcp_tasks against a fake `workflow` module: `python -m unittest test_mcp_tasks` (in examples/python)."""
import asyncio
import logging
import unittest
from datetime import datetime, timezone
from types import SimpleNamespace

from temporalio import workflow

from temporalio.exceptions import ActivityError, ApplicationError, CancelledError

from temporalio.testing import ActivityEnvironment

from mcp_tasks import (ACTIVITY_PROGRESS_KEY, INPUT_RESPONSES_SIGNAL, MCP_TASK_STATUS, PROGRESS_MEMO_KEY, TASK_PROGRESS_QUERY, TOOL_CANCELLATION,
                       InputTimeout, McpTask, Undo, protocol_error, report_progress)


async def _raise(err):
    raise err


class ContinueAsNew(workflow.ContinueAsNewError):
    """The SDK raises a subclass of its own; direct instances are refused."""


def _continue_as_new(**kwargs):
    raise ContinueAsNew(kwargs)


def activity_cancelled() -> ActivityError:
    """What the Python SDK raises in the workflow when a cancel reaches a running activity."""
    err = ActivityError("Activity cancelled", scheduled_event_id=5, started_event_id=6, identity="w", activity_type="provision",
                        activity_id="1", retry_state=None)
    err.__cause__ = CancelledError("Cancelled")
    return err


class FakeWorkflow:
    def __init__(self, with_status=True):
        self.signals, self.queries, self.memo, self.details, self.statuses = {}, {}, {}, None, []
        attrs = {MCP_TASK_STATUS: "working"} if with_status else {}
        self._info = SimpleNamespace(typed_search_attributes=attrs)

    def set_signal_handler(self, name, fn): self.signals[name] = fn
    def set_query_handler(self, name, fn): self.queries[name] = fn
    def upsert_memo(self, updates): self.memo.update(updates)
    def set_current_details(self, text): self.details = text
    def memo_value(self, key, default=None): return {"mcpTask": {"summary": "approve(x=1)"}}.get(key, default)
    def info(self): return self._info
    def now(self): return datetime(2026, 12, 3, 12, 0, 0, 123000, tzinfo=timezone.utc)
    def upsert_search_attributes(self, updates): self.statuses += [u.value for u in updates]
    def cancellation_reason(self): return self.cancel_reason
    def time(self): return asyncio.get_running_loop().time()  # the workflow's clock: moves with the test's loop

    logger = logging.getLogger("fake-workflow")

    cancel_reason = None  # set by a test: Temporal delivered a cancel
    activities: list
    failing: set = set()  # activity names that fail

    async def execute_activity(self, name, args, **options):
        self.activities = [*getattr(self, "activities", []), (name, *args)]
        await asyncio.sleep(0)  # a cancel of the workflow's task would land here, if not shielded
        if name in self.failing:
            raise ApplicationError(f"{name} refused", non_retryable=True)

    async def wait_condition(self, fn, timeout=None):
        async def until():
            while not fn():
                await asyncio.sleep(0)
        await asyncio.wait_for(until(), timeout)  # raises asyncio.TimeoutError, as the SDK does


class McpTaskTest(unittest.IsolatedAsyncioTestCase):
    async def test_elicit_publishes_input_required_then_working(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)
        task.set_status_message("waiting")
        waiting = asyncio.ensure_future(task.elicit("approval", "OK?", {"type": "object"}))
        await asyncio.sleep(0)
        progress = wf.memo[PROGRESS_MEMO_KEY]
        self.assertEqual(progress["status"], "input_required")
        self.assertEqual(progress["statusMessage"], "waiting")
        self.assertEqual(progress["lastUpdatedAt"], "2026-12-03T12:00:00.123Z")
        self.assertEqual(progress["inputRequests"]["approval"]["params"]["mode"], "form")
        self.assertIs(wf.queries[TASK_PROGRESS_QUERY](), task.progress)
        self.assertIn("waiting for input: approval", wf.details)
        self.assertTrue(wf.details.startswith("approve(x=1)"))
        wf.signals[INPUT_RESPONSES_SIGNAL]({"other": 1, "approval": {"action": "accept", "content": {"approved": True}}})
        self.assertEqual(await waiting, {"action": "accept", "content": {"approved": True}})
        self.assertEqual(wf.memo[PROGRESS_MEMO_KEY]["status"], "working")
        self.assertEqual(wf.memo[PROGRESS_MEMO_KEY]["inputRequests"], {})
        self.assertEqual(wf.statuses, ["input_required", "working"])
        # answered: a late answer for the same key is not outstanding, and the key cannot be reused
        wf.signals[INPUT_RESPONSES_SIGNAL]({"approval": {"action": "decline"}})
        self.assertEqual(task.carry()["responses"], {})
        with self.assertRaises(ValueError):
            await task.elicit("approval", "again?", {"type": "object"})

    async def test_cancel_withdraws_and_records_cancelled(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)
        run = asyncio.ensure_future(task.run(lambda: task.elicit("a", "?", {"type": "object"})))
        await asyncio.sleep(0)
        wf.cancel_reason = ""  # tasks/cancel: the SDK records the request, then cancels the workflow's task
        run.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await run
        self.assertEqual(wf.memo[PROGRESS_MEMO_KEY]["inputRequests"], {})
        self.assertEqual(wf.statuses[-1], "cancelled")

    async def test_carry_and_no_search_attribute(self):
        wf = FakeWorkflow(with_status=False)
        first = McpTask(wf=wf)
        asyncio.ensure_future(first.request_inputs({"a": {"method": "elicitation/create", "params": {}}, "b": {"method": "elicitation/create", "params": {}}}))
        await asyncio.sleep(0)
        wf.signals[INPUT_RESPONSES_SIGNAL]({"a": 1})  # a partial answer: still waiting for b
        await asyncio.sleep(0)
        self.assertEqual(list(first.progress["inputRequests"]), ["b"])
        second = McpTask(first.carry(), wf=FakeWorkflow(with_status=False))
        self.assertEqual(second.progress["status"], "input_required")
        self.assertEqual(wf.statuses, [])

    async def test_a_bug_fails_the_workflow_task_undoes_nothing_and_records_no_end(self):
        for cancel_reason in (None, ""):  # also with a cancel requested: a bug is never an end
            wf = FakeWorkflow()
            wf.cancel_reason = cancel_reason
            task = McpTask(wf=wf)

            async def broken():
                await task.step(lambda: asyncio.sleep(0), Undo("undo", ["a"], step="step a"))
                raise KeyError("service")

            with self.assertRaises(KeyError):  # as it is: the SDK fails the workflow task, Temporal retries it
                await task.run(broken)
            self.assertEqual(getattr(wf, "activities", []), [])
            self.assertEqual(wf.statuses, [])
            self.assertEqual(len(task.carry()["undos"]), 1)  # still registered for the retried task

    async def test_a_failure_undoes_and_fails_with_the_tools_error(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)
        with self.assertRaises(ApplicationError) as caught:  # a protocol error passes as it is
            await task.run(lambda: _raise(protocol_error(-32602, "no")))
        self.assertEqual(caught.exception.type, "McpProtocolError")
        self.assertEqual(wf.statuses, ["failed"])

    async def test_a_timeout_nobody_requested_is_the_tools_failure(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)

        async def body():
            await task.step(lambda: asyncio.sleep(0), Undo("undo", ["a"], step="step a"))
            await asyncio.wait_for(asyncio.sleep(10), 0.01)  # the tool's own timeout

        with self.assertRaises(ApplicationError) as caught:
            await task.run(body)
        self.assertEqual(caught.exception.type, TOOL_CANCELLATION)
        self.assertEqual(caught.exception.message, "The tool's own cancellation, not tasks/cancel: a timeout fired")
        self.assertTrue(caught.exception.non_retryable)
        self.assertEqual(wf.activities, [("undo", "a")])
        self.assertEqual(wf.statuses, ["failed"])

    async def test_an_inner_task_cancelled_is_the_tools_failure_not_a_cancel(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)

        async def body():
            await task.step(lambda: asyncio.sleep(0), Undo("undo", ["a"], step="step a"))
            inner = asyncio.ensure_future(asyncio.sleep(10))
            await asyncio.sleep(0)
            inner.cancel()
            await inner

        with self.assertRaises(ApplicationError) as caught:  # not asyncio.CancelledError: Temporal would record FAILED with McpTaskStatus left working
            await task.run(body)
        self.assertEqual(caught.exception.type, TOOL_CANCELLATION)
        self.assertEqual(caught.exception.message, "The tool's own cancellation, not tasks/cancel: an inner task or scope was cancelled")
        self.assertEqual(wf.activities, [("undo", "a")])
        self.assertEqual(wf.statuses, ["failed"])

    async def test_a_cancel_whose_undo_fails_ends_failed(self):
        wf = FakeWorkflow()
        wf.failing = {"undo_a"}
        task = McpTask(wf=wf)

        async def body():
            await task.step(lambda: asyncio.sleep(0), Undo("undo_a", ["a"], step="step a"))
            wf.cancel_reason = ""
            await task.step(lambda: _raise(activity_cancelled()), Undo("undo_b", ["b"], step="step b"))

        with self.assertRaises(ApplicationError) as caught:
            await task.run(body)
        self.assertEqual(caught.exception.message, "1 step(s) could not be undone: step a (undo_a refused)")
        self.assertEqual([a[0] for a in wf.activities], ["undo_b", "undo_a"])
        self.assertEqual(wf.statuses, ["failed"])

    async def test_a_cancel_during_an_activity_undoes_every_step_newest_first_and_ends_cancelled(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)

        async def body():
            await task.step(lambda: asyncio.sleep(0), Undo("undo", ["a"], step="step a"))
            wf.cancel_reason = ""  # tasks/cancel, delivered while the next activity runs
            await task.step(lambda: _raise(activity_cancelled()), Undo("undo", ["b"], step="step b"))

        with self.assertRaises(ActivityError) as caught:
            await task.run(body)
        self.assertIsInstance(caught.exception.__cause__, CancelledError)  # raised as it is: Temporal records CANCELED
        self.assertEqual(wf.activities, [("undo", "b"), ("undo", "a")])
        self.assertEqual(wf.statuses, ["cancelled"])

    async def test_the_undos_are_shielded_from_the_cancel_that_called_for_them(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)
        await task.step(lambda: asyncio.sleep(0), Undo("undo", ["a"]))
        await task.step(lambda: asyncio.sleep(0), Undo("undo", ["b"]))
        undoing = asyncio.ensure_future(task.compensate())
        await asyncio.sleep(0)
        undoing.cancel()  # what the SDK does to the workflow's task on tasks/cancel
        await undoing
        self.assertEqual(wf.activities, [("undo", "b"), ("undo", "a")])

    async def test_a_cancel_after_the_body_returned_still_undoes_and_ends_cancelled(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)

        async def body():
            await task.step(lambda: asyncio.sleep(0), Undo("undo", ["a"]))
            wf.cancel_reason = "too late for the body"
            return "done"

        with self.assertRaises(asyncio.CancelledError):
            await task.run(body)
        self.assertEqual(wf.activities, [("undo", "a")])
        self.assertEqual(wf.statuses, ["cancelled"])

    async def test_every_undo_is_attempted_and_the_failures_fail_the_task_together(self):
        wf = FakeWorkflow()
        wf.failing = {"undo_b", "undo_c"}
        task = McpTask(wf=wf)

        async def body():
            for name in "abc":
                await task.step(lambda: asyncio.sleep(0), Undo(f"undo_{name}", [name], step=f"step {name}"))
            raise ApplicationError("step d broke", non_retryable=True)

        with self.assertRaises(ApplicationError) as caught:
            await task.run(body)
        self.assertEqual([a[0] for a in wf.activities], ["undo_c", "undo_b", "undo_a"])
        self.assertEqual(caught.exception.type, "McpProtocolError")
        self.assertEqual(caught.exception.details[0]["code"], -32603)
        self.assertEqual(caught.exception.message, "2 step(s) could not be undone: step c (undo_c refused); step b (undo_b refused)")
        self.assertEqual(str(caught.exception.__cause__), "step d broke")
        self.assertEqual(wf.statuses, ["failed"])

    async def test_an_input_timeout_withdraws_the_keys(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)
        self.assertEqual(await task.elicit("approval", "OK?", {"type": "object"}, timeout=0.01), {"action": "cancel"})
        with self.assertRaises(InputTimeout) as caught:
            await task.request_inputs({"a": {"method": "roots/list"}, "b": {"method": "roots/list"}}, timeout=0.01)
        self.assertEqual(caught.exception.keys, ["a", "b"])
        self.assertTrue(caught.exception.non_retryable)
        self.assertEqual(wf.memo[PROGRESS_MEMO_KEY]["inputRequests"], {})
        self.assertEqual(wf.memo[PROGRESS_MEMO_KEY]["status"], "working")

    async def test_an_input_timeout_is_one_deadline_not_restarted_by_a_partial_answer(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)
        loop = asyncio.get_running_loop()
        started = loop.time()
        asking = asyncio.ensure_future(task.request_inputs({"a": {"method": "roots/list"}, "b": {"method": "roots/list"}}, timeout=0.3))
        await asyncio.sleep(0.2)
        wf.signals[INPUT_RESPONSES_SIGNAL]({"a": {"roots": []}})  # a partial answer, 0.2 s in
        with self.assertRaises(InputTimeout) as caught:
            await asking
        self.assertEqual(caught.exception.keys, ["b"])
        self.assertLess(loop.time() - started, 0.45)  # 0.3 s from the question, not 0.2 + 0.3

    async def test_only_outstanding_keys_are_answers(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)
        asking = asyncio.ensure_future(task.request_inputs({"a": {"method": "roots/list"}}))
        await asyncio.sleep(0)
        for bad in (None, ["a"], "a", 3):  # not an object of answers: ignored, never a failed workflow task
            wf.signals[INPUT_RESPONSES_SIGNAL](bad)
        wf.signals[INPUT_RESPONSES_SIGNAL]({"constructor": 1, "__class__": 2, "keys": 3, "toString": 4, "b": 5})
        self.assertEqual(task.carry()["responses"], {})
        wf.signals[INPUT_RESPONSES_SIGNAL]({"a": 1, "__proto__": 2})
        self.assertEqual(await asking, {"a": 1})
        self.assertEqual(task.carry()["responses"], {})

    async def test_an_answer_left_when_the_wait_is_cancelled_is_withdrawn_not_carried(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)
        asking = asyncio.ensure_future(task.request_inputs({"a": {"method": "roots/list"}, "b": {"method": "roots/list"}}))
        await asyncio.sleep(0)
        wf.signals[INPUT_RESPONSES_SIGNAL]({"a": 1})  # recorded in the same activation as the cancel: never taken
        asking.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await asking
        self.assertEqual(task.progress["inputRequests"], {})
        self.assertEqual(task.carry()["responses"], {})  # a withdrawn key's answer does not travel to the next run

    async def test_continue_as_new_undoes_nothing_and_the_undos_travel(self):
        wf = FakeWorkflow()
        wf.continue_as_new = _continue_as_new
        first = McpTask(wf=wf)

        async def body():
            await first.step(lambda: asyncio.sleep(0), Undo("undo", ["a"], step="step a"))
            first.continue_as_new({"resume": 1})

        with self.assertRaises(workflow.ContinueAsNewError):
            await first.run(body)
        self.assertEqual(getattr(wf, "activities", []), [])
        self.assertEqual(wf.statuses, [])
        later = FakeWorkflow()
        second = McpTask(first.carry(), wf=later)
        later.cancel_reason = ""
        with self.assertRaises(asyncio.CancelledError):  # a cancel in the next run undoes the first run's step
            await second.run(lambda: asyncio.sleep(0))
        self.assertEqual(later.activities, [("undo", "a")])

    async def test_a_cancel_requested_before_continue_as_new_ends_the_chain_cancelled(self):
        wf = FakeWorkflow()
        wf.cancel_reason = ""
        task = McpTask(wf=wf)

        async def body():
            await task.step(lambda: asyncio.sleep(0), Undo("undo", ["a"]))
            task.continue_as_new({"resume": 1})

        with self.assertRaises(asyncio.CancelledError):
            await task.run(body)
        self.assertEqual(wf.activities, [("undo", "a")])
        self.assertEqual(wf.statuses, ["cancelled"])

    async def test_report_progress_heartbeats_the_contract_shape(self):
        env = ActivityEnvironment()
        beats = []
        env.on_heartbeat = lambda *details: beats.append(details)

        async def activity_body():
            report_progress("exporting rows", done=4000, total=10000)
            report_progress("finishing")

        await env.run(activity_body)
        self.assertEqual(beats, [({ACTIVITY_PROGRESS_KEY: {"message": "exporting rows", "done": 4000, "total": 10000}},),
                                 ({ACTIVITY_PROGRESS_KEY: {"message": "finishing"}},)])

    def test_protocol_error(self):
        err = protocol_error(-32602, "bad input", {"field": "x"})
        self.assertEqual(err.type, "McpProtocolError")
        self.assertEqual(err.details[0], {"code": -32602, "data": {"field": "x"}})
        self.assertTrue(err.non_retryable)


if __name__ == "__main__":
    unittest.main()
