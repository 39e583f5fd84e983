"""Unit test of the claim guard (claim_guard.py, applied by McpTask.run) against a fake `workflow`
module: `python -m unittest test_mcp_tasks_claim` (in examples/python)."""
import asyncio
import unittest

from temporalio import workflow
from temporalio.exceptions import ApplicationError

from claim_guard import CLAIM_GUARD_PATCH, CLAIMED_SIGNAL, UNCLAIMED
from fake_workflow import FakeWorkflow, continue_as_new
from mcp_tasks import McpTask, Undo

WITHIN_MS = 50
UNCLAIMED_REASON = "nobody claimed the task within 50ms (its caller never got the handle)"
NOW_MS = round(FakeWorkflow().now().timestamp() * 1000)  # the fake's workflow time stands still


def _guarded() -> FakeWorkflow:
    wf = FakeWorkflow(task_memo={"claimWithinMs": WITHIN_MS})
    wf.continue_as_new = continue_as_new
    return wf


async def _applied(task: McpTask, name: str, undo: str = "undo") -> None:
    await task.step(lambda: asyncio.sleep(0), Undo(undo, [name], step=f"step {name}"))


def _deadline_with(happening):
    """A guard timer that fires with `happening` in the same activation: the SDK applies the
    activation's signals and cancel before the timer's waiter resumes."""
    async def wait_condition(fn, timeout=None, timeout_summary=None):
        await asyncio.sleep(0.01)
        happening()
        raise asyncio.TimeoutError()
    return wait_condition


def _run(task: McpTask, body) -> asyncio.Future:
    # a task of its own, as the workflow's run is: the guard cancels the task that runs the body
    return asyncio.ensure_future(task.run(body))


class ClaimGuardTest(unittest.IsolatedAsyncioTestCase):
    async def test_claimed_in_time_the_task_runs_to_its_end(self):
        wf = _guarded()
        task = McpTask(wf=wf)

        async def body():
            await _applied(task, "a")
            wf.signals[CLAIMED_SIGNAL]()  # the server handed the caller its handle
            await asyncio.sleep(0.1)  # well past the deadline
            self.assertNotIn("claimDeadline", task.carry())  # a claimed chain carries no deadline
            return "done"

        self.assertEqual(await _run(task, body), "done")
        self.assertEqual(getattr(wf, "activities", []), [])
        self.assertEqual(wf.statuses, ["completed"])

    async def test_unclaimed_the_body_is_cancelled_every_step_undone_newest_first_and_the_task_fails(self):
        wf = _guarded()
        task = McpTask(wf=wf)

        async def body():
            await _applied(task, "a")
            await _applied(task, "b")
            await task.step(lambda: asyncio.sleep(10), Undo("undo", ["c"], step="step c"))  # in flight when the guard fires

        with self.assertRaises(ApplicationError) as caught:
            await _run(task, body)
        self.assertEqual(caught.exception.type, UNCLAIMED)
        self.assertEqual(caught.exception.message, f"{UNCLAIMED_REASON}: steps undone")
        self.assertTrue(caught.exception.non_retryable)
        self.assertEqual(wf.activities, [("undo", "c"), ("undo", "b"), ("undo", "a")])
        self.assertEqual(wf.statuses, ["failed"])

    async def test_a_body_that_outlives_the_guards_cancel_does_not_complete_nor_continue_as_new(self):
        for escape in ("return", "continue as new"):
            wf = _guarded()
            task = McpTask(wf=wf)

            async def body():
                await _applied(task, "a")
                try:
                    await asyncio.sleep(10)
                except asyncio.CancelledError:
                    if escape == "return":
                        return "done anyway"
                    task.continue_as_new({"resume": 1})  # the next run would have no deadline left to keep

            with self.assertRaises(ApplicationError) as caught:
                await _run(task, body)
            self.assertEqual(caught.exception.type, UNCLAIMED)
            self.assertEqual(wf.activities, [("undo", "a")])
            self.assertEqual(wf.statuses, ["failed"])

    async def test_an_undo_that_fails_ends_the_unclaimed_task_failed_with_it(self):
        wf = _guarded()
        wf.failing = {"undo_a"}
        task = McpTask(wf=wf)

        async def body():
            await _applied(task, "a", "undo_a")
            await _applied(task, "b")
            await asyncio.sleep(10)

        with self.assertRaises(ApplicationError) as caught:
            await _run(task, body)
        self.assertEqual(caught.exception.message, f"1 step(s) could not be undone after {UNCLAIMED_REASON}: step a (undo_a refused)")
        self.assertEqual(caught.exception.details[0]["code"], -32603)
        self.assertEqual([a[0] for a in wf.activities], ["undo", "undo_a"])
        self.assertEqual(wf.statuses, ["failed"])

    async def test_a_cancel_requested_first_wins(self):
        wf = _guarded()
        task = McpTask(wf=wf)

        async def body():
            await _applied(task, "a")
            await asyncio.sleep(10)

        running = _run(task, body)
        await asyncio.sleep(0)
        wf.cancel_reason = ""  # tasks/cancel before the deadline
        await asyncio.sleep(0.1)  # the deadline passes: the guard leaves the task to the cancel
        self.assertFalse(running.done())
        running.cancel()  # the SDK delivers the cancel to the workflow's task
        with self.assertRaises(asyncio.CancelledError):
            await running
        self.assertEqual(wf.activities, [("undo", "a")])
        self.assertEqual(wf.statuses, ["cancelled"])

    async def test_a_claim_in_the_same_workflow_task_as_the_deadline_wins(self):
        wf = _guarded()
        wf.wait_condition = _deadline_with(lambda: wf.signals[CLAIMED_SIGNAL]())
        task = McpTask(wf=wf)

        async def body():
            await _applied(task, "a")
            await asyncio.sleep(0.05)
            return "done"

        self.assertEqual(await _run(task, body), "done")
        self.assertEqual(getattr(wf, "activities", []), [])
        self.assertEqual(wf.statuses, ["completed"])

    async def test_a_cancel_in_the_same_workflow_task_as_the_deadline_ends_the_task_cancelled(self):
        wf = _guarded()
        running: asyncio.Future | None = None

        def cancel():  # tasks/cancel, delivered in the activation whose timer is the deadline
            wf.cancel_reason = ""
            running.cancel()

        wf.wait_condition = _deadline_with(cancel)
        task = McpTask(wf=wf)

        async def body():
            await _applied(task, "a")
            await asyncio.sleep(10)

        running = _run(task, body)
        with self.assertRaises(asyncio.CancelledError):
            await running
        self.assertEqual(wf.activities, [("undo", "a")])
        self.assertEqual(wf.statuses, ["cancelled"])

    async def test_the_deadline_is_absolute_across_continue_as_new(self):
        wf = _guarded()
        first = McpTask(wf=wf)

        async def body():
            await _applied(first, "a")
            first.continue_as_new({"resume": 1})

        with self.assertRaises(workflow.ContinueAsNewError):
            await _run(first, body)
        carry = first.carry()
        self.assertEqual(carry["claimDeadline"], NOW_MS + WITHIN_MS)
        # the next run waits what is left of it, not claimWithinMs again
        later, timeouts = _guarded(), []

        async def timer(fn, timeout=None, timeout_summary=None):
            timeouts.append(timeout)
            await asyncio.sleep(10)

        later.wait_condition = timer
        McpTask({**carry, "claimDeadline": NOW_MS + 20}, wf=later)
        await asyncio.sleep(0)
        self.assertEqual(timeouts, [0.02])
        # a run that starts past it ends at once: its body never runs, the earlier runs' steps are undone
        last = _guarded()
        second = McpTask({**carry, "claimDeadline": NOW_MS - 1}, wf=last)
        with self.assertRaises(ApplicationError) as caught:
            await _run(second, lambda: self.fail("the body ran"))
        self.assertEqual(caught.exception.type, UNCLAIMED)
        self.assertEqual(last.activities, [("undo", "a")])
        # a continued run without a deadline belongs to a claimed chain: no guard
        unguarded = _guarded()
        McpTask({**carry, "claimDeadline": None}, wf=unguarded)
        self.assertNotIn(CLAIMED_SIGNAL, unguarded.signals)

    async def test_runs_started_before_the_guard_replay_without_it(self):
        wf = _guarded()
        wf.replaying_before = {CLAIM_GUARD_PATCH}
        task = McpTask(wf=wf)

        async def body():
            await asyncio.sleep(0.1)
            return "done"

        self.assertEqual(await _run(task, body), "done")
        self.assertNotIn(CLAIMED_SIGNAL, wf.signals)
        self.assertNotIn("claimDeadline", task.carry())


if __name__ == "__main__":
    unittest.main()
