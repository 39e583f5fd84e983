"""Unit test of mcp_tasks' input, progress and carry against a fake `workflow` module:
`python -m unittest test_mcp_tasks` (in examples/python); how a task ends is test_mcp_tasks_end."""
import asyncio
import unittest

from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from fake_workflow import FakeWorkflow
from mcp_tasks import (ACTIVITY_PROGRESS_KEY, INPUT_RESPONSES_SIGNAL, PROGRESS_MEMO_KEY, TASK_PROGRESS_QUERY, InputTimeout, McpTask,
                       protocol_error, report_progress)


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

    async def test_unanswered_past_the_servers_limit_fails_as_mcp_task_unanswered_unless_the_tools_timeout_is_shorter(self):
        wf = FakeWorkflow(task_memo={"answerWithinMs": 50})
        with self.assertRaises(ApplicationError) as caught:
            await McpTask(wf=wf).request_inputs({"a": {"method": "roots/list"}})
        self.assertEqual(caught.exception.type, "McpTaskUnanswered")
        self.assertTrue(caught.exception.non_retryable)
        self.assertIn("nobody answered a within 50 ms", str(caught.exception))
        self.assertEqual(wf.memo[PROGRESS_MEMO_KEY]["inputRequests"], {})
        with self.assertRaises(InputTimeout):
            await McpTask(wf=FakeWorkflow(task_memo={"answerWithinMs": 5000})).request_inputs({"b": {"method": "roots/list"}}, timeout=0.01)
        # a task from before the patch replays without the limit
        wf = FakeWorkflow(task_memo={"answerWithinMs": 10})
        wf.replaying_before = {"mcp-tasks.answer-deadline"}
        waiting = asyncio.ensure_future(McpTask(wf=wf).request_inputs({"c": {"method": "roots/list"}}))
        await asyncio.sleep(0.05)
        self.assertFalse(waiting.done())
        wf.signals[INPUT_RESPONSES_SIGNAL]({"c": {"roots": []}})
        self.assertEqual(await waiting, {"c": {"roots": []}})

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

    async def test_an_answer_recorded_with_the_timer_still_counts(self):
        wf = FakeWorkflow()

        async def answered_as_the_timer_fires(fn, timeout=None):
            wf.signals[INPUT_RESPONSES_SIGNAL]({"a": {"roots": []}})  # both in one workflow task: the timer's error wins the race
            raise asyncio.TimeoutError()

        wf.wait_condition = answered_as_the_timer_fires
        task = McpTask(wf=wf)
        self.assertEqual(await task.request_inputs({"a": {"method": "roots/list"}}, timeout=1), {"a": {"roots": []}})
        self.assertEqual(task.progress["inputRequests"], {})

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
