"""Unit test of mcp_tasks against a fake `workflow` module: `python -m unittest test_mcp_tasks` (in examples/python)."""
import asyncio
import unittest
from datetime import datetime, timezone
from types import SimpleNamespace

from temporalio.exceptions import ApplicationError

from mcp_tasks import INPUT_RESPONSES_SIGNAL, MCP_TASK_STATUS, PROGRESS_MEMO_KEY, TASK_PROGRESS_QUERY, McpTask, protocol_error


async def _raise(err):
    raise err


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

    async def wait_condition(self, fn, timeout=None):
        while not fn():
            await asyncio.sleep(0)


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

    async def test_a_bug_fails_the_workflow(self):
        wf = FakeWorkflow()
        task = McpTask(wf=wf)

        async def broken():
            raise KeyError("service")

        with self.assertRaises(ApplicationError) as caught:
            await task.run(broken)
        self.assertEqual(caught.exception.type, "KeyError")
        self.assertTrue(caught.exception.non_retryable)
        self.assertEqual(wf.statuses, ["failed"])
        with self.assertRaises(ApplicationError):  # a protocol error passes as it is
            await task.run(lambda: _raise(protocol_error(-32602, "no")))
        self.assertEqual(wf.statuses, ["failed", "failed"])

    def test_protocol_error(self):
        err = protocol_error(-32602, "bad input", {"field": "x"})
        self.assertEqual(err.type, "McpProtocolError")
        self.assertEqual(err.details[0], {"code": -32602, "data": {"field": "x"}})
        self.assertTrue(err.non_retryable)


if __name__ == "__main__":
    unittest.main()
