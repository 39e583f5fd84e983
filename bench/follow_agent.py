"""bench:follow's Python agent: the SDK's mcp.Client following a provision through task handles.

Usage: follow_agent.py URL ARGS_JSON progress|plain
Prints one JSON object: calls, chars (text + structuredContent), structuredChars, result.
"""

import asyncio
import json
import sys

APPROVE = {"go_on": {"action": "accept", "content": {"approved": True}}}


def measured(result):
    text = "".join(getattr(block, "text", "") for block in result.content)
    structured = result.structured_content
    structured_json = json.dumps(structured, separators=(",", ":"), ensure_ascii=False) if structured is not None else ""
    return text, structured or {}, len(text) + len(structured_json), len(structured_json)


async def follow(url, args, with_progress):
    from mcp import Client

    async def on_progress(value, total, message):
        pass

    callback = on_progress if with_progress else None
    calls = chars = structured_chars = 0
    async with Client(url, read_timeout_seconds=600) as client:
        name, arguments = "provision_with_approval", args
        while True:
            result = await client.call_tool(name, arguments, progress_callback=callback)
            text, structured, n, s = measured(result)
            calls, chars, structured_chars = calls + 1, chars + n, structured_chars + s
            status = structured.get("status")
            if status not in ("working", "input_required") or "taskId" not in structured:
                return {"calls": calls, "chars": chars, "structuredChars": structured_chars, "result": text}
            task_id = structured["taskId"]
            if status == "input_required":
                name, arguments = "task_respond", {"taskId": task_id, "responses": APPROVE}
            else:
                name, arguments = "task_wait", {"taskId": task_id}


if __name__ == "__main__":
    out = asyncio.run(follow(sys.argv[1], json.loads(sys.argv[2]), sys.argv[3] == "progress"))
    print(json.dumps(out))
