"""Unit test of how mcp_tasks ends a task (McpTask.run / _end, compensation, continue-as-new)
against a fake `workflow` module: `python -m unittest test_mcp_tasks_end` (in examples/python)."""
import asyncio
import unittest

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError

from fake_workflow import FakeWorkflow, activity_cancelled, continue_as_new, raise_
from mcp_tasks import ONE_END_PATCH, PROGRESS_MEMO_KEY, TOOL_CANCELLATION, McpTask, Undo, protocol_error


async def _applied(task: McpTask, name: str, undo: str = "undo") -> None:
    """A step named `step <name>` that took effect, with its undo `undo(name)`."""
    await task.step(lambda: asyncio.sleep(0), Undo(undo, [name], step=f"step {name}"))


async def _cancelled_inner_task():
    inner = asyncio.ensure_future(asyncio.sleep(10))
    await asyncio.sleep(0)
    inner.cancel()
    await inner


class McpTaskEndTest(unittest.IsolatedAsyncioTestCase):
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

    async def test_a_bug_fails_the_workflow_task_undoes_nothing_and_records_no_end(self):
        for cancel_reason in (None, ""):  # also with a cancel requested: a bug is never an end
            wf = FakeWorkflow()
            wf.cancel_reason = cancel_reason
            task = McpTask(wf=wf)

            async def broken():
                await _applied(task, "a")
                raise KeyError("service")

            with self.assertRaises(KeyError):  # as it is: the SDK fails the workflow task, Temporal retries it
                await task.run(broken)
            self.assertEqual(getattr(wf, "activities", []), [])
            self.assertEqual(wf.statuses, [])
            self.assertEqual(len(task.carry()["undos"]), 1)  # still registered for the retried task

    async def test_the_sdks_own_base_exception_an_eviction_decides_nothing(self):
        class Evicted(BaseException):
            """Like the SDK's _WorkflowBeingEvictedError, raised in a run evicted from the worker's cache."""

        wf = FakeWorkflow()
        task = McpTask(wf=wf)

        async def body():
            await _applied(task, "a")
            raise Evicted()

        with self.assertRaises(Evicted):
            await task.run(body)
        self.assertEqual(getattr(wf, "activities", []), [])  # replayed elsewhere: nothing undone
        self.assertEqual(wf.statuses, [])

    async def test_runs_started_before_the_one_end_replay_the_end_they_had(self):
        wf = FakeWorkflow()
        wf.replaying_before = {ONE_END_PATCH}
        task = McpTask(wf=wf)

        async def broken():
            await _applied(task, "a")
            raise KeyError("service")

        with self.assertRaises(ApplicationError) as caught:  # that helper undid a bug and failed the task
            await task.run(broken)
        self.assertEqual(caught.exception.type, "KeyError")
        self.assertEqual(wf.activities, [("undo", "a")])
        self.assertEqual(wf.statuses, ["failed"])
        inner_cancel = McpTask(wf=wf)
        with self.assertRaises(asyncio.CancelledError):  # and re-raised a cancellation nobody requested
            await inner_cancel.run(lambda: _cancelled_inner_task())
        self.assertEqual(wf.statuses, ["failed"])

    async def test_a_failure_undoes_and_fails_with_the_tools_error(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)
        with self.assertRaises(ApplicationError) as caught:  # a protocol error passes as it is
            await task.run(lambda: raise_(protocol_error(-32602, "no")))
        self.assertEqual(caught.exception.type, "McpProtocolError")
        self.assertEqual(wf.statuses, ["failed"])

    async def test_a_timeout_nobody_requested_is_the_tools_failure(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)

        async def body():
            await _applied(task, "a")
            await asyncio.wait_for(asyncio.sleep(10), 0.01)  # the tool's own timeout

        with self.assertRaises(ApplicationError) as caught:
            await task.run(body)
        self.assertEqual(caught.exception.type, TOOL_CANCELLATION)
        self.assertEqual(caught.exception.message, "the tool's own cancellation scope was cancelled (a timeout), not tasks/cancel: TimeoutError")
        self.assertTrue(caught.exception.non_retryable)
        self.assertEqual(wf.activities, [("undo", "a")])
        self.assertEqual(wf.statuses, ["failed"])

    async def test_an_inner_task_cancelled_is_the_tools_failure_not_a_cancel(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)

        async def body():
            await _applied(task, "a")
            await _cancelled_inner_task()

        with self.assertRaises(ApplicationError) as caught:  # not asyncio.CancelledError: Temporal would record FAILED with McpTaskStatus left working
            await task.run(body)
        self.assertEqual(caught.exception.type, TOOL_CANCELLATION)
        self.assertEqual(caught.exception.message, "the tool's own cancellation scope was cancelled (an inner task), not tasks/cancel: CancelledError")
        self.assertEqual(wf.activities, [("undo", "a")])
        self.assertEqual(wf.statuses, ["failed"])

    async def test_a_cancel_whose_undo_fails_ends_failed(self):
        wf = FakeWorkflow()
        wf.failing = {"undo_a"}
        task = McpTask(wf=wf)

        async def body():
            await _applied(task, "a", "undo_a")
            wf.cancel_reason = ""
            await task.step(lambda: raise_(activity_cancelled()), Undo("undo_b", ["b"], step="step b"))

        with self.assertRaises(ApplicationError) as caught:
            await task.run(body)
        self.assertEqual(caught.exception.message, "1 step(s) could not be undone: step a (undo_a refused)")
        self.assertEqual([a[0] for a in wf.activities], ["undo_b", "undo_a"])
        self.assertEqual(wf.statuses, ["failed"])

    async def test_a_cancel_during_an_activity_undoes_every_step_newest_first_and_ends_cancelled(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)

        async def body():
            await _applied(task, "a")
            wf.cancel_reason = ""  # tasks/cancel, delivered while the next activity runs
            await task.step(lambda: raise_(activity_cancelled()), Undo("undo", ["b"], step="step b"))

        with self.assertRaises(ActivityError) as caught:
            await task.run(body)
        self.assertIsInstance(caught.exception.__cause__, CancelledError)  # raised as it is: Temporal records CANCELED
        self.assertEqual(wf.activities, [("undo", "b"), ("undo", "a")])
        self.assertEqual(wf.statuses, ["cancelled"])

    async def test_the_undos_are_shielded_from_the_cancel_that_called_for_them(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)
        await _applied(task, "a")
        await _applied(task, "b")
        undoing = asyncio.ensure_future(task.compensate())
        await asyncio.sleep(0)
        undoing.cancel()  # what the SDK does to the workflow's task on tasks/cancel
        await undoing
        self.assertEqual(wf.activities, [("undo", "b"), ("undo", "a")])

    async def test_a_cancel_after_the_body_returned_still_undoes_and_ends_cancelled(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)

        async def body():
            await _applied(task, "a")
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
                await _applied(task, name, f"undo_{name}")
            raise ApplicationError("step d broke", non_retryable=True)

        with self.assertRaises(ApplicationError) as caught:
            await task.run(body)
        self.assertEqual([a[0] for a in wf.activities], ["undo_c", "undo_b", "undo_a"])
        self.assertEqual(caught.exception.type, "McpProtocolError")
        self.assertEqual(caught.exception.details[0]["code"], -32603)
        self.assertEqual(caught.exception.message, "2 step(s) could not be undone: step c (undo_c refused); step b (undo_b refused)")
        self.assertEqual(str(caught.exception.__cause__), "step d broke")
        self.assertEqual(wf.statuses, ["failed"])

    async def test_continue_as_new_undoes_nothing_and_the_undos_travel(self):
        wf = FakeWorkflow()
        wf.continue_as_new = continue_as_new
        first = McpTask(wf=wf)

        async def body():
            await _applied(first, "a")
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
            await _applied(task, "a")
            task.continue_as_new({"resume": 1})

        with self.assertRaises(asyncio.CancelledError):
            await task.run(body)
        self.assertEqual(wf.activities, [("undo", "a")])
        self.assertEqual(wf.statuses, ["cancelled"])


if __name__ == "__main__":
    unittest.main()
